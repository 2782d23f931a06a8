// A Vercel AI SDK client over callstream's UI message stream, built only of the `ai`
// package's own code. Two readings of the same text (served as a fetch response, cut in
// the job's pieces):
//  1. reader: parseJsonEventStream with uiMessageChunkSchema (the SDK's SSE parser and
//     its zod schema of UI message chunks), then readUIMessageStream, which applies the
//     chunks to a UIMessage; we report every chunk the schema rejected, every error
//     the reader raised, and the last message it gave.
//  2. chat: what useChat does, without React: an AbstractChat with a plain state and
//     the DefaultChatTransport, whose fetch answers with the text; we report the
//     chat's status, error, finish reason and last message.
//
// Usage: node vercel_client.mjs [file] [--batch]  (see common.mjs for the input).

import {
  AbstractChat,
  DefaultChatTransport,
  getToolName,
  isToolUIPart,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
} from "ai";

import { bodyStream, capturingConsole, errorText, fetchServing, runJobs } from "./common.mjs";

const HEADERS = {
  "content-type": "text/event-stream",
  "x-vercel-ai-ui-message-stream": "v1",
};

function summarizePart(part) {
  if (isToolUIPart(part)) {
    const out = {
      type: part.type,
      toolCallId: part.toolCallId,
      toolName: getToolName(part),
      state: part.state,
      input: part.input ?? null,
    };
    for (const key of ["errorText", "output", "providerExecuted", "rawInput"]) {
      if (part[key] !== undefined) out[key] = part[key];
    }
    return out;
  }
  if (part.type === "text" || part.type === "reasoning") {
    return { type: part.type, text: part.text, state: part.state };
  }
  return { type: part.type };
}

function summarizeMessage(message) {
  if (message == null) return null;
  return { id: message.id, role: message.role, parts: message.parts.map(summarizePart) };
}

async function readerPass(job) {
  const rejected = [];
  const errors = [];
  let chunks = 0;
  const parsed = parseJsonEventStream({ stream: bodyStream(job.sse, job.cuts), schema: uiMessageChunkSchema });
  const valid = parsed.pipeThrough(
    new TransformStream({
      transform(result, controller) {
        chunks += 1;
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
    }
  } catch (error) {
    errors.push(errorText(error));
  }
  return { chunks, rejected, errors, message: summarizeMessage(last) };
}

class PlainState {
  constructor() {
    this.status = "ready";
    this.error = undefined;
    this.messages = [];
  }
  pushMessage(message) {
    this.messages = [...this.messages, this.snapshot(message)];
  }
  popMessage() {
    this.messages = this.messages.slice(0, -1);
  }
  replaceMessage(index, message) {
    this.messages = [...this.messages.slice(0, index), this.snapshot(message), ...this.messages.slice(index + 1)];
  }
  snapshot(thing) {
    return structuredClone(thing);
  }
}

class PlainChat extends AbstractChat {
  constructor(options) {
    super({ ...options, state: new PlainState() });
  }
}

async function chatPass(job) {
  let finish = null;
  const errors = [];
  const chat = new PlainChat({
    transport: new DefaultChatTransport({
      api: "http://callstream.invalid/api/chat",
      fetch: fetchServing(job.sse, job.cuts, HEADERS),
    }),
    onError: (error) => errors.push(errorText(error)),
    onFinish: ({ finishReason, isError, isAbort, isDisconnect }) => {
      finish = { finishReason: finishReason ?? null, isError, isAbort, isDisconnect };
    },
  });
  const { said } = await capturingConsole(() => chat.sendMessage({ text: "go" }));
  const last = chat.messages.at(-1);
  return {
    status: chat.status,
    error: errorText(chat.error),
    errors,
    finish,
    said,
    message: last?.role === "assistant" ? summarizeMessage(last) : null,
  };
}

await runJobs(process.argv.slice(2), async (job) => ({
  reader: await readerPass(job),
  chat: await chatPass(job),
}));
