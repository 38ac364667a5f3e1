// Sends generated traces to a Tracelight receiver with the real OpenTelemetry JS SDK, with the exporter named on
// the command line (http: OTLP/HTTP JSON, proto: OTLP/HTTP binary protobuf, grpc: OTLP/gRPC), and writes what it sent as JSON
// lines (one span each) for the check that every span arrived with its attributes, events and links.
// usage: node otel_sdk_send.mjs http|proto|grpc URL TRACES OUT.jsonl
import { context, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const [protocol, url, tracesArg, out] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const { OTLPTraceExporter } = require(`@opentelemetry/exporter-trace-otlp-${protocol === 'proto' ? 'proto' : protocol === 'grpc' ? 'grpc' : 'http'}`);
const exporter = new OTLPTraceExporter({ url });
const resource = new Resource({ 'service.name': `shop-${protocol}`, 'host.name': 'e2e-host' });
const processor = new BatchSpanProcessor(exporter, { maxExportBatchSize: 64, scheduledDelayMillis: 50 });
const provider = new BasicTracerProvider({ resource });
provider.addSpanProcessor(processor);
const tracer = provider.getTracer('tracelight-e2e');

const sent = [];
const base = Date.now() - 60_000;
for (let t = 0; t < Number(tracesArg); ++t) {
  const t0 = base + t * 10;
  const root = tracer.startSpan(`GET /item/${t % 7}`, { kind: 1, startTime: t0, attributes: { 'http.route': '/item/:id', 'item.id': t } });
  const rootCtx = root.spanContext();
  const parent = trace.setSpan(context.active(), root);
  const db = tracer.startSpan('SELECT items', { kind: 2, startTime: t0 + 1, attributes: { 'db.system': 'postgresql', 'rows': t % 13 } }, parent);
  db.addEvent('cache miss', { key: `item-${t}` }, t0 + 2);
  db.end(t0 + 5);
  const work = tracer.startSpan('render', { startTime: t0 + 5, links: [{ context: db.spanContext() }] }, parent);
  work.end(t0 + 8);
  root.end(t0 + 9);
  for (const [span, name, parentId] of [[root, `GET /item/${t % 7}`, ''], [db, 'SELECT items', rootCtx.spanId], [work, 'render', rootCtx.spanId]]) {
    const c = span.spanContext();
    sent.push({ traceId: c.traceId, spanId: c.spanId, parentId, name,
             attributes: Object.fromEntries(Object.entries(span.attributes).map(([k, v]) => [k, String(v)])),
             events: span.events.map((e) => e.name), links: span.links.map((l) => l.context.spanId) });
  }
}
await provider.forceFlush();
await provider.shutdown();
writeFileSync(out, sent.map((s) => JSON.stringify(s)).join('\n') + '\n');
console.log(`sent ${sent.length} spans in ${tracesArg} traces with the ${protocol} exporter`);
