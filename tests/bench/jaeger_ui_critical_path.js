// Jaeger UI's criticalPathForTrace, for the single-trace figures (issue 11): a plain-JavaScript
// transcription of packages/jaeger-ui/src/components/TracePage/CriticalPath/{index.ts, utils/cpspan.ts,
// utils/findLastFinishingChildSpan.ts, utils/sanitizeOverFlowingChildren.ts} at jaegertracing/jaeger-ui
// c321fb32b (Apache-2.0, Copyright (c) 2023 The Jaeger Authors), after the UI's own trace transform
// (transformTraceData and the OTel facade, transcribed below).
//   node [--stack-size=N] jaeger_ui_critical_path.js TRACE.json
'use strict';
const fs = require('fs');

const PRODUCER = 'producer', CONSUMER = 'consumer';
const isBlockingSpan = (childKind, parentKind) => !(parentKind === PRODUCER && childKind === CONSUMER);

function createCPSpanMap(rootSpan) {
  const spanMap = new Map();
  const traverse = span => {
    const cpSpan = {
      spanID: span.spanID, parentSpanID: span.parentSpanID,
      isBlocking: isBlockingSpan(span.kind, span.parentSpan && span.parentSpan.kind),
      startTime: span.startTime, endTime: span.endTime, duration: span.duration, childSpanIDs: [],
    };
    spanMap.set(span.spanID, cpSpan);
    span.childSpans.forEach(child => {
      if (isBlockingSpan(child.kind, span.kind)) {
        cpSpan.childSpanIDs.push(child.spanID);
        traverse(child);
      }
    });
  };
  traverse(rootSpan);
  return spanMap;
}

function findLastFinishingChildSpan(spanMap, currentSpan, returningChildStartTime) {
  let last, maxEndTime = -1;
  currentSpan.childSpanIDs.forEach(childId => {
    const child = spanMap.get(childId);
    if (!child) return;
    if (returningChildStartTime) {
      if (child.endTime < returningChildStartTime && child.endTime > maxEndTime) { maxEndTime = child.endTime; last = child; }
    } else if (child.endTime > maxEndTime) { maxEndTime = child.endTime; last = child; }
  });
  return last;
}

function sanitizeOverFlowingChildren(spanMap) {
  [...spanMap.keys()].forEach(spanId => {
    const span = spanMap.get(spanId);
    if (!span.parentSpanID) return;
    const parent = spanMap.get(span.parentSpanID);
    if (!parent) { spanMap.delete(span.spanID); return; }
    const childEnd = span.endTime, parentEnd = parent.endTime;
    if (span.startTime >= parent.startTime) {
      if (span.startTime >= parentEnd) {
        spanMap.delete(span.spanID);
        parent.childSpanIDs = parent.childSpanIDs.filter(id => id !== span.spanID);
        return;
      }
      if (childEnd > parentEnd) spanMap.set(span.spanID, { ...span, duration: parentEnd - span.startTime, endTime: parentEnd });
      return;
    }
    if (childEnd <= parent.startTime) {
      spanMap.delete(span.spanID);
      parent.childSpanIDs = parent.childSpanIDs.filter(id => id !== span.spanID);
    } else if (childEnd <= parentEnd) {
      spanMap.set(span.spanID, { ...span, startTime: parent.startTime, duration: childEnd - parent.startTime });
    } else {
      spanMap.set(span.spanID, { ...span, startTime: parent.startTime, duration: parentEnd - parent.startTime, endTime: parentEnd });
    }
  });
  return spanMap;
}

function computeCriticalPath(spanMap, spanId, criticalPath, returningChildStartTime) {
  const current = spanMap.get(spanId);
  if (!current) return criticalPath;
  const lfc = findLastFinishingChildSpan(spanMap, current, returningChildStartTime);
  if (lfc) {
    const section = { spanID: current.spanID, sectionStart: lfc.endTime, sectionEnd: returningChildStartTime || current.endTime };
    if (section.sectionStart !== section.sectionEnd) criticalPath.push(section);
    computeCriticalPath(spanMap, lfc.spanID, criticalPath);
  } else {
    const section = { spanID: current.spanID, sectionStart: current.startTime, sectionEnd: returningChildStartTime || current.endTime };
    if (section.sectionStart !== section.sectionEnd) criticalPath.push(section);
    if (current.parentSpanID) computeCriticalPath(spanMap, current.parentSpanID, criticalPath, current.startTime);
  }
  return criticalPath;
}

function criticalPathForTrace(trace) {
  let sections = [];
  for (const root of trace.rootSpans) sections = computeCriticalPath(sanitizeOverFlowingChildren(createCPSpanMap(root)), root.spanID, sections);
  return sections;
}

// The UI's transformTraceData (packages/jaeger-ui/src/model/transform-trace-data.ts at c321fb32b: unique span ids,
// tags deduplicated and ordered, processes, parents from references, the depth-first order with children sorted by
// start; the trace's name, title and emoji left out) and the OTel facade the critical path reads
// (OtelTraceFacade.ts, OtelSpanFacade.ts: kind from the span.kind tag, parent, attributes, events, links, status,
// resource, children), so the time is what the UI spends from a downloaded trace to its critical path.
function dedupeAndOrderTags(tags) {
  const unique = [];
  for (const tag of tags) if (!unique.some(t => t.key === tag.key && t.value === tag.value)) unique.push(tag);
  return unique.sort((a, b) => (a.key.toLowerCase() > b.key.toLowerCase() ? 1 : a.key.toLowerCase() < b.key.toLowerCase() ? -1 : 0));
}

function transformTraceData(data) {
  const spanIdCounts = new Map(), spanMap = new Map();
  for (const span of data.spans) {
    let spanID = span.spanID;
    const count = spanIdCounts.get(spanID);
    if (count != null) { spanIdCounts.set(spanID, count + 1); spanID = `${spanID}_${count}`; span.spanID = spanID; }
    else spanIdCounts.set(spanID, 1);
    span.process = data.processes[span.processID] || { serviceName: 'unknown-service' };
    span.process.tags = span.process.tags || [];
    span.tags = dedupeAndOrderTags(span.tags || []);
    span.logs = (span.logs || []).map(log => ({ ...log, fields: log.fields || [] }));
    span.references = span.references || [];
    span.childSpans = [];
    span.subsidiarilyReferencedBy = [];
    span.warnings = span.warnings || [];
    spanMap.set(spanID, span);
  }
  const rootSpans = [];
  for (const span of spanMap.values()) {
    let parent;
    for (const ref of span.references)
      if ((ref.refType === 'CHILD_OF' || ref.refType === 'FOLLOWS_FROM') && (parent = spanMap.get(ref.spanID))) break;
    if (parent) parent.childSpans.push(span); else rootSpans.push(span);
  }
  const spans = [], svcCounts = {};
  let traceStart = Number.MAX_SAFE_INTEGER, traceEnd = 0;
  const repair = (span, parent) => { if (!Number.isFinite(span.startTime) || span.startTime <= 0) span.startTime = (parent && parent.startTime) || 0; };
  const processSpan = (span, depth) => {
    span.depth = depth;
    span.hasChildren = span.childSpans.length > 0;
    traceStart = Math.min(traceStart, span.startTime);
    traceEnd = Math.max(traceEnd, span.startTime + span.duration);
    svcCounts[span.process.serviceName] = (svcCounts[span.process.serviceName] || 0) + 1;
    span.references.forEach((ref, index) => {
      const refSpan = spanMap.get(ref.spanID);
      if (refSpan) { ref.span = refSpan; if (index > 0) refSpan.subsidiarilyReferencedBy.push({ spanID: span.spanID, span, refType: ref.refType }); }
    });
    spans.push(span);
    span.childSpans.forEach(child => repair(child, span));
    span.childSpans.sort((a, b) => a.startTime - b.startTime);
    span.childSpans.forEach(child => processSpan(child, depth + 1));
  };
  rootSpans.forEach(root => repair(root));
  rootSpans.sort((a, b) => a.startTime - b.startTime);
  rootSpans.forEach(root => processSpan(root, 0));
  for (const span of spans) span.relativeStartTime = span.startTime - traceStart;
  return { traceID: data.traceID, spans, spanMap, rootSpans, services: Object.keys(svcCounts), startTime: traceStart, endTime: traceEnd };
}

const attributesOf = tags => { const out = {}; for (const t of tags) if (t.value != null) out[t.key] = t.value; return out; };
function otelFacade(trace) {
  const facades = trace.spans.map(s => {
    const kindTag = s.tags.find(t => t.key === 'span.kind');
    const parentRef = s.references.find(r => r.refType === 'CHILD_OF') || s.references.find(r => r.refType === 'FOLLOWS_FROM');
    const errorTag = s.tags.find(t => t.key === 'error');
    return {
      legacy: s, spanID: s.spanID, parentSpanID: parentRef && parentRef.spanID,
      kind: kindTag ? String(kindTag.value).toLowerCase() : 'internal',
      startTime: s.startTime, duration: s.duration, endTime: s.startTime + s.duration,
      attributes: attributesOf(s.tags),
      events: s.logs.map(log => ({ timestamp: log.timestamp, name: (log.fields.find(f => f.key === 'event') || {}).value || 'log',
                                   attributes: attributesOf(log.fields) })),
      links: s.references.filter(r => r !== parentRef).map(r => ({ spanID: r.spanID })),
      status: errorTag && errorTag.value ? 'ERROR' : 'OK',
      resource: { attributes: attributesOf(s.process.tags), serviceName: s.process.serviceName },
      childSpans: [],
    };
  });
  const spanMap = new Map(facades.map(f => [f.spanID, f]));
  for (const f of facades) {
    if (f.parentSpanID) f.parentSpan = spanMap.get(f.parentSpanID);
    f.childSpans = f.legacy.childSpans.map(c => spanMap.get(c.spanID)).filter(Boolean);
  }
  return { rootSpans: trace.rootSpans.map(r => spanMap.get(r.spanID)), spanMap };
}

function transform(raw) { return otelFacade(transformTraceData(raw)); }

const t0 = process.hrtime.bigint();
const raw = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')).data[0];
const t1 = process.hrtime.bigint();
const trace = transform(raw);
const t2 = process.hrtime.bigint();
const sections = criticalPathForTrace(trace);
const t3 = process.hrtime.bigint();
const ms = (a, b) => (Number(b - a) / 1e6).toFixed(1);
let critical = 0;
for (const s of sections) critical += s.sectionEnd - s.sectionStart;
console.log(`${raw.spans.length} spans: parse ${ms(t0, t1)} ms, transform ${ms(t1, t2)} ms, critical path ${ms(t2, t3)} ms; ` +
            `${sections.length} sections, ${critical} us critical`);
