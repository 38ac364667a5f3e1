// Jaeger UI's criticalPathForTrace, for the single-trace figures (issue 11): a plain-JavaScript
// transcription of packages/jaeger-ui/src/components/TracePage/CriticalPath/{index.ts, utils/cpspan.ts,
// utils/findLastFinishingChildSpan.ts, utils/sanitizeOverFlowingChildren.ts} at jaegertracing/jaeger-ui
// c321fb32b (Apache-2.0, Copyright (c) 2023 The Jaeger Authors), with a minimal stand-in for the UI's
// trace transform (parent = first reference, children by start time, kind from the span.kind tag).
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

// The trace model the UI builds from Jaeger JSON, reduced to what the critical path reads.
function transform(raw) {
  const byId = new Map();
  for (const s of raw.spans) {
    const kindTag = (s.tags || []).find(t => t.key === 'span.kind');
    byId.set(s.spanID, {
      spanID: s.spanID, parentSpanID: s.references && s.references.length ? s.references[0].spanID : undefined,
      startTime: s.startTime, duration: s.duration, endTime: s.startTime + s.duration,
      kind: kindTag ? String(kindTag.value).toLowerCase() : 'internal', childSpans: [],
    });
  }
  const rootSpans = [];
  for (const s of byId.values()) {
    const parent = s.parentSpanID && byId.get(s.parentSpanID);
    if (parent) { s.parentSpan = parent; parent.childSpans.push(s); } else { s.parentSpanID = undefined; rootSpans.push(s); }
  }
  for (const s of byId.values()) s.childSpans.sort((a, b) => a.startTime - b.startTime);
  return { rootSpans };
}

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
