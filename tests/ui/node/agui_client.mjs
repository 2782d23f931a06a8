// An AG-UI client over callstream's AG-UI stream, built only of the protocol's own code.
//
// Two readings of the same server-sent-events text (served as a fetch response, cut in
// the job's pieces):
//  1. schema: @ag-ui/client's SSE parser (parseSSEStream over runHttpRequest) gives the
//     events; each is parsed with @ag-ui/core's event schema (zod); we report every
//     rejection and every field the schema would not keep.
//  2. client: an @ag-ui/client HttpAgent runs against the same response: its pipeline
//     (SSE parsing, the version boundary, enforceEvents' per-event validation,
//     transformChunks, verifyEvents' sequence rules, defaultApplyEvents) turns the
//     events into messages. We report the messages, the run's failure if any, the
//     RUN_ERROR and CUSTOM events the subscriber saw, and what the library printed.
//
// Usage: node agui_client.mjs [file] [--batch]  (see common.mjs for the input).

import { HttpAgent, parseSSEStream, runHttpRequest } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";

import { capturingConsole, droppedPaths, errorText, fetchServing, runJobs } from "./common.mjs";

const HEADERS = { "content-type": "text/event-stream" };

function collect(observable) {
  return new Promise((resolve) => {
    const values = [];
    observable.subscribe({
      next: (value) => values.push(value),
      error: (error) => resolve({ values, error: errorText(error) }),
      complete: () => resolve({ values, error: null }),
    });
  });
}

async function schemaPass(job) {
  const fetch = fetchServing(job.sse, job.cuts, HEADERS);
  const { values, error } = await collect(parseSSEStream(runHttpRequest(() => fetch())));
  const rejected = [];
  const dropped = [];
  values.forEach((raw, index) => {
    const parsed = EventSchemas.safeParse(raw);
    if (!parsed.success) {
      rejected.push({ index, type: raw?.type ?? null, issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
    } else {
      for (const path of droppedPaths(raw, parsed.data)) dropped.push({ index, type: raw.type, path });
    }
  });
  return { events: values, sseError: error, rejected, dropped };
}

function summarizeMessage(message) {
  const out = { id: message.id, role: message.role };
  if ("content" in message) out.content = message.content;
  if (message.toolCalls) {
    out.toolCalls = message.toolCalls.map((call) => ({
      id: call.id,
      type: call.type,
      name: call.function?.name,
      arguments: call.function?.arguments,
    }));
  }
  if (message.toolCallId !== undefined) out.toolCallId = message.toolCallId;
  return out;
}

async function clientPass(job) {
  const agent = new HttpAgent({
    url: "http://callstream.invalid/agui",
    fetch: fetchServing(job.sse, job.cuts, HEADERS),
  });
  const seen = { runErrors: [], custom: [], failed: null };
  const subscriber = {
    onRunErrorEvent: ({ event }) => {
      seen.runErrors.push({ message: event.message, code: event.code ?? null });
    },
    onCustomEvent: ({ event }) => {
      seen.custom.push({ name: event.name, value: event.value });
    },
    onRunFailed: ({ error }) => {
      seen.failed = errorText(error);
    },
  };
  const { value, said } = await capturingConsole(async () => {
    try {
      const result = await agent.runAgent({}, subscriber);
      return { newMessages: result.newMessages.length, error: null };
    } catch (error) {
      return { newMessages: null, error: errorText(error) };
    }
  });
  return {
    error: value.error ?? seen.failed,
    said,
    runErrors: seen.runErrors,
    custom: seen.custom,
    messages: agent.messages.map(summarizeMessage),
  };
}

await runJobs(process.argv.slice(2), async (job) => {
  const schema = await schemaPass(job);
  const client = await clientPass(job);
  return {
    types: schema.events.map((e) => e?.type ?? null),
    sseError: schema.sseError,
    rejected: schema.rejected,
    dropped: schema.dropped,
    ...client,
  };
});
