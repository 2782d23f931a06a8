// A Vercel AI SDK reader of callstream's structured-output data parts, built only of the
// `ai` package's own code: parseJsonEventStream with uiMessageChunkSchema (the SDK's SSE
// parser and its zod schema of UI message chunks), then readUIMessageStream, which
// applies the chunks to a UIMessage (a data part with the id of an earlier one replaces
// it). Reports the chunks the schema rejected, the reader's errors, every data value the
// message showed (in order) and the message's data parts at the end.
//
// Usage: node structured_data_client.mjs [file] [--batch]  (see common.mjs for the input).

import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } from "ai";

import { bodyStream, errorText, runJobs } from "./common.mjs";

async function readerPass(job) {
  const rejected = [];
  const errors = [];
  const seen = [];
  const parsed = parseJsonEventStream({ stream: bodyStream(job.sse, job.cuts), schema: uiMessageChunkSchema });
  const valid = parsed.pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (result.success) controller.enqueue(result.value);
        else rejected.push({ raw: result.rawValue ?? null, error: errorText(result.error) });
      },
    }),
  );
  let last = null;
  try {
    for await (const message of readUIMessageStream({
      stream: valid,
      onError: (error) => errors.push(errorText(error)),
    })) {
      last = message;
      for (const part of message.parts) {
        if (part.type.startsWith("data-")) seen.push(structuredClone(part.data));
      }
    }
  } catch (error) {
    errors.push(errorText(error));
  }
  const parts = (last?.parts ?? [])
    .filter((part) => part.type.startsWith("data-"))
    .map((part) => ({ type: part.type, id: part.id ?? null, data: part.data }));
  return { rejected, errors, seen, parts };
}

await runJobs(process.argv.slice(2), readerPass);
