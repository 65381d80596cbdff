// An example protocol adapter in a second language: standard nDCG in JavaScript doubles.
//
// Run it with `ndcgspec run node-example` or `ndcgspec run --exec "node ndcg_adapter.mjs"`.
// It reads one JSON message per line on stdin and answers on stdout (spec/schema/protocol/).
// It computes the trec_eval-like conventions and a few common variants, and declares exactly
// those; the harness marks every other configuration unsupported.
import { createInterface } from "node:readline";

const PROTOCOL = 1;

const ADAPTER = {
  name: "ndcg-node-example",
  version: "1.0.0",
  language: "javascript",
  float_width: 64,
  capabilities: {
    gain: ["linear", "exponential"],
    discount: ["log"],
    ideal: ["judged", "retrieved"],
    unjudged: ["zero", "condense"],
    negative: ["zero", "unjudged"],
    fractional: ["keep", "truncate"],
    ties: ["docid-desc", "docid-asc", "input"],
    duplicates: ["error", "first"],
    empty: ["zero", "one", "nan", "skip"],
    aggregate: ["qrels", "run"],
  },
  params: {},
  // Given document ids and every qrels row, it can be asked about every axis.
  observability: { not_observable: {}, sees_unretrieved_labels: true },
};

class Rejected extends Error {}

const byteOrder = (a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

const TIE_ORDER = {
  "docid-desc": (a, b) => byteOrder(b.docid, a.docid),
  "docid-asc": (a, b) => byteOrder(a.docid, b.docid),
  input: () => 0,
};

function gain(level, config) {
  if (level < 0) return 0; // negative=zero: judged, no gain
  return config.gain === "exponential" ? 2 ** level - 1 : level;
}

function discount(rank, config) {
  const base = config.log_base === "e" ? Math.E : Number(config.log_base);
  return Math.log(base) / Math.log(rank + Number(config.log_offset));
}

function dcg(gains, config) {
  let total = 0;
  gains.forEach((g, i) => {
    total += g * discount(i + 1, config);
  });
  return total;
}

function withoutDuplicates(postings, qid, config) {
  const best = new Map();
  for (const p of postings) {
    const seen = best.get(p.docid);
    if (seen !== undefined && config.duplicates === "error") {
      throw new Rejected(`document ${p.docid} is listed twice for query ${qid}`);
    }
    if (seen === undefined || p.score > seen.score) best.set(p.docid, p);
  }
  return postings.filter((p) => best.get(p.docid) === p);
}

function queryNdcg(qid, judged, postings, config) {
  let docs = withoutDuplicates(postings, qid, config);
  if (config.unjudged === "condense") docs = docs.filter((p) => judged.has(p.docid));
  const ranked = [...docs].sort((a, b) => b.score - a.score || TIE_ORDER[config.ties](a, b));
  const k = config.cutoff === null ? Infinity : config.cutoff;
  const gainOf = (docid) => (judged.has(docid) ? gain(judged.get(docid), config) : 0);
  const source = config.ideal === "judged" ? [...judged.keys()] : docs.map((p) => p.docid);
  const ideal = source.map(gainOf).filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = dcg(ideal, config);
  if (idcg > 0) return { value: dcg(ranked.slice(0, k).map((p) => gainOf(p.docid)), config) / idcg, inMean: true };
  return { zero: { value: 0, inMean: true }, one: { value: 1, inMean: true },
           nan: { value: null, inMean: true }, skip: { value: null, inMean: false } }[config.empty];
}

function compute(input, config) {
  const qrels = new Map();
  for (const [qid, docid, label] of input.qrels) {
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    const level = config.fractional === "truncate" ? Math.trunc(Number(label)) : Number(label);
    // negative=unjudged drops the judgment; the query itself stays judged.
    if (level < 0 && config.negative === "unjudged") continue;
    qrels.get(qid).set(docid, level);
  }
  const run = new Map();
  for (const [qid, docid, score] of input.run) {
    if (!run.has(qid)) run.set(qid, []);
    run.get(qid).push({ docid, score: Number(score) });
  }
  const queries = [...qrels.keys()].filter((q) => config.aggregate === "qrels" || run.has(q));
  const perQuery = {};
  const mean = [];
  for (const qid of queries) {
    const { value, inMean } = queryNdcg(qid, qrels.get(qid), run.get(qid) ?? [], config);
    perQuery[qid] = value;
    if (inMean) mean.push(value);
  }
  const aggregate = mean.length === 0 || mean.includes(null) ? null : mean.reduce((a, b) => a + b, 0) / mean.length;
  return { per_query: perQuery, aggregate };
}

function result(item) {
  try {
    return { id: item.id, ...compute(item.input, item.config) };
  } catch (error) {
    if (error instanceof Rejected) return { id: item.id, rejected: error.message };
    return { id: item.id, error: String(error), detail: String(error.stack ?? "") };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const message = JSON.parse(line);
  if (message.cmd === "stop") break;
  const reply = message.cmd === "start"
    ? { protocol: PROTOCOL, adapter: ADAPTER }
    : { seq: message.seq, results: message.cases.map(result) };
  process.stdout.write(JSON.stringify(reply) + "\n");
}
process.exit(0);
