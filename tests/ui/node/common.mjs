// Shared by the reader scripts: reading the jobs, serving a job's text as an HTTP
// response body cut into pieces, summarizing what a client ended with, and capturing
// what the libraries print (their warnings are part of the verdict: a protocol library
// that warns about our stream has found something wrong with it).
//
// Input (stdin, or the file named by the first argument):
//   - raw server-sent-events text: one job, one JSON result on stdout;
//   - with --batch: a JSON array of jobs, each {"sse": text, "cuts": [byte offsets]}
//     (cuts optional), and a JSON array of results on stdout, in order.
// The body is sent in pieces cut at the given UTF-8 byte offsets (a cut may fall inside
// a character or an SSE line: the clients must put them back together).

import { readFileSync } from "node:fs";

export async function readJobs(argv) {
  const batch = argv.includes("--batch");
  const file = argv.find((a) => !a.startsWith("--"));
  const text = file ? readFileSync(file, "utf8") : readFileSync(0, "utf8");
  if (!batch) return { batch, jobs: [{ sse: text, cuts: [] }] };
  const jobs = JSON.parse(text).map((job) =>
    typeof job === "string" ? { sse: job, cuts: [] } : { sse: job.sse, cuts: job.cuts ?? [] },
  );
  return { batch, jobs };
}

export function pieces(text, cuts) {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set([0, bytes.length, ...cuts.map((c) => Math.min(Math.max(c, 0), bytes.length))])];
  points.sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i + 1 < points.length; i++) out.push(bytes.slice(points[i], points[i + 1]));
  return out;
}

export function bodyStream(text, cuts) {
  const parts = pieces(text, cuts);
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < parts.length) controller.enqueue(parts[i++]);
      else controller.close();
    },
  });
}

// A fetch that answers every request with the job's text as a streamed body.
export function fetchServing(text, cuts, headers) {
  return async () => new Response(bodyStream(text, cuts), { status: 200, headers });
}

// Collects console.warn / console.error output while `run` runs (the libraries report
// dropped or stripped material that way).
export async function capturingConsole(run) {
  const said = [];
  const saved = { warn: console.warn, error: console.error, log: console.log };
  const keep = (level) => (...args) =>
    said.push(`${level}: ${args.map((a) => (a instanceof Error ? a.message : typeof a === "string" ? a : safeJson(a))).join(" ")}`);
  console.warn = keep("warn");
  console.error = keep("error");
  console.log = keep("log");
  try {
    const value = await run();
    return { value, said };
  } finally {
    Object.assign(console, saved);
  }
}

export function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

export function errorText(error) {
  if (error == null) return null;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

// Paths present in `raw` but missing from `parsed` (what a schema dropped).
export function droppedPaths(raw, parsed, path = "") {
  if (raw === null || typeof raw !== "object") return [];
  if (parsed === null || typeof parsed !== "object") return [path || "."];
  const out = [];
  for (const key of Object.keys(raw)) {
    const here = `${path}/${key}`;
    if (!(key in parsed)) out.push(here);
    else out.push(...droppedPaths(raw[key], parsed[key], here));
  }
  return out;
}

export async function runJobs(argv, one) {
  const { batch, jobs } = await readJobs(argv);
  const results = [];
  for (const job of jobs) {
    try {
      results.push(await one(job));
    } catch (error) {
      results.push({ crashed: errorText(error) });
    }
  }
  process.stdout.write(JSON.stringify(batch ? results : results[0]));
  process.stdout.write("\n");
}
