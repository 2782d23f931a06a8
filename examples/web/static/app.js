"use strict";
// The page of examples/web: fetches /api/vercel or /api/agui, reads the server-sent events
// off the response body, and applies each event to the view below. One small reader per
// protocol; no framework, no build step.
//
// What the DOM holds (tests/ui/test_web_example.py reads it):
//   #turn[data-state]            idle | streaming | done (the stream ended) | failed
//   #parts > p.text              each assistant text part, in stream order
//   #parts > section.call        one per tool call, in the order the calls started:
//       data-call-id, data-name, data-state (streaming | ended | done | invalid),
//       data-args (the final arguments as JSON, once done), data-error (once invalid)
//       .raw                     the argument text as it streamed (the server's text for
//                                an invalid call)
//       .tree                    the final arguments as nested lists: every value node has
//                                data-type; an object's <li> has data-key

const $ = (id) => document.getElementById(id);

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// --- the view: what both protocols' readers drive ---------------------------------------

class View {
  constructor(root) {
    this.root = root;
    this.parts = root.querySelector("#parts");
    this.status = root.querySelector("#status");
    this.texts = new Map(); // text part id -> Text node
    this.calls = new Map(); // tool call id -> {section, raw, text}
    this.events = 0;
    this.finishReason = null;
    this.error = null;
    this.parts.replaceChildren();
    this.setState("streaming", "streaming…");
  }

  setState(state, message) {
    this.root.dataset.state = state;
    this.status.textContent = message;
  }

  textStart(id) {
    const node = document.createTextNode("");
    const part = el("p", "text");
    part.dataset.id = id;
    part.append(node);
    this.parts.append(part);
    this.texts.set(id, node);
  }

  textDelta(id, delta) {
    if (!this.texts.has(id)) this.textStart(id);
    this.texts.get(id).appendData(delta);
  }

  call(id, name) {
    let call = this.calls.get(id);
    if (call) {
      if (name && !call.section.dataset.name) {
        call.section.dataset.name = name;
        call.section.querySelector(".name").textContent = name;
      }
      return call;
    }
    const section = el("section", "call");
    section.dataset.callId = id;
    section.dataset.name = name ?? "";
    section.dataset.state = "streaming";
    const header = el("header");
    const badge = el("span", "badge", "streaming");
    header.append(el("span", "name", name ?? "(no name)"), el("code", "id", id), badge);
    const raw = el("pre", "raw");
    const text = document.createTextNode("");
    raw.append(text);
    section.append(header, raw);
    this.parts.append(section);
    call = { section, badge, raw, text };
    this.calls.set(id, call);
    return call;
  }

  callDelta(id, delta) {
    this.call(id).text.appendData(delta);
  }

  setCallState(call, state, badge) {
    call.section.dataset.state = state;
    call.badge.textContent = badge;
  }

  callDone(id, name, args) {
    const call = this.call(id, name);
    call.section.querySelector(".tree")?.remove();
    const tree = el("div", "tree");
    tree.append(render(args));
    call.section.append(tree);
    call.section.dataset.args = JSON.stringify(args);
    this.setCallState(call, "done", "done");
  }

  callInvalid(id, name, error, raw) {
    const call = this.call(id, name);
    call.section.querySelector(".tree")?.remove();
    delete call.section.dataset.args;
    if (typeof raw === "string") call.text.data = raw;
    call.section.dataset.error = error ?? "";
    call.section.append(el("p", "error", error ?? "invalid"));
    this.setCallState(call, "invalid", "invalid");
  }

  callOutput(id, output, failed) {
    const call = this.calls.get(id);
    if (!call) return;
    const text = typeof output === "string" ? output : JSON.stringify(output);
    call.section.append(el("p", failed ? "output error" : "output", "→ " + text));
  }

  failed(message) {
    this.error = message;
  }

  end() {
    if (this.root.dataset.state !== "streaming") return;
    const calls = [...this.calls.values()].map((c) => c.section.dataset.state);
    const count = (state) => calls.filter((s) => s === state).length;
    const bits = [`${this.events} events`, `${count("done")} done`];
    if (count("invalid")) bits.push(`${count("invalid")} invalid`);
    if (this.finishReason) bits.push(`finish reason: ${this.finishReason}`);
    if (this.error) bits.push(`error: ${this.error}`);
    this.root.dataset.events = String(this.events);
    this.setState("done", "Stream ended · " + bits.join(" · "));
  }
}

// A JSON value as nested lists: objects are <ul> (keys in <span class="key">), arrays are
// <ol> (indexes in <span class="index">), scalars are <span data-type>.
function render(value) {
  if (Array.isArray(value) || (value !== null && typeof value === "object")) {
    const isArray = Array.isArray(value);
    const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value);
    if (entries.length === 0) {
      const empty = el("span", "empty", isArray ? "[]" : "{}");
      empty.dataset.type = isArray ? "array" : "object";
      return empty;
    }
    const list = el(isArray ? "ol" : "ul");
    list.dataset.type = isArray ? "array" : "object";
    for (const [key, item] of entries) {
      const li = el("li");
      if (isArray) li.append(el("span", "index", String(key)));
      else {
        li.dataset.key = key;
        li.append(el("span", "key", key));
      }
      li.append(render(item));
      list.append(li);
    }
    return list;
  }
  const type = value === null ? "null" : typeof value;
  const leaf = el("span", "", type === "string" ? value : String(value));
  leaf.dataset.type = type;
  return leaf;
}

// --- the two protocols --------------------------------------------------------------------

// Vercel AI SDK UI message stream v1 (the chunks useChat reads).
function applyVercel(view, c) {
  switch (c.type) {
    case "text-start": view.textStart(c.id); break;
    case "text-delta": view.textDelta(c.id, c.delta); break;
    case "tool-input-start": view.call(c.toolCallId, c.toolName); break;
    case "tool-input-delta": view.callDelta(c.toolCallId, c.inputTextDelta); break;
    case "tool-input-available": view.callDone(c.toolCallId, c.toolName, c.input); break;
    case "tool-input-error":
      view.callInvalid(c.toolCallId, c.toolName, c.errorText, c.input);
      break;
    case "tool-output-available": view.callOutput(c.toolCallId, c.output, false); break;
    case "tool-output-error": view.callOutput(c.toolCallId, c.errorText, true); break;
    case "error": view.failed(c.errorText); break;
    case "finish": view.finishReason = c.finishReason ?? null; break;
    default: break; // start, text-end, reasoning-*: nothing to show
  }
}

// AG-UI events. The arguments stream as raw text; at TOOL_CALL_END the client parses them
// (as AG-UI clients do). callstream adds two CUSTOM events: the final arguments when the
// provider replaced them, and the verdict on an invalid call (which follows its END).
function applyAgui(view, e) {
  switch (e.type) {
    case "TEXT_MESSAGE_START": view.textStart(e.messageId); break;
    case "TEXT_MESSAGE_CONTENT": view.textDelta(e.messageId, e.delta); break;
    case "TOOL_CALL_START": view.call(e.toolCallId, e.toolCallName); break;
    case "TOOL_CALL_ARGS": view.callDelta(e.toolCallId, e.delta); break;
    case "TOOL_CALL_END": {
      const call = view.call(e.toolCallId);
      const text = call.replaced ?? call.text.data;
      let args;
      try {
        args = text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        view.setCallState(call, "ended", "ended"); // the verdict follows
        break;
      }
      view.callDone(e.toolCallId, call.section.dataset.name, args);
      break;
    }
    case "TOOL_CALL_RESULT": view.callOutput(e.toolCallId, e.content, false); break;
    case "CUSTOM": {
      const v = e.value ?? {};
      if (e.name === "callstream.tool_call_arguments") {
        view.call(v.toolCallId).replaced = JSON.stringify(v.arguments);
      } else if (e.name === "callstream.tool_call_invalid") {
        view.callInvalid(v.toolCallId, v.toolCallName, v.error, v.arguments);
      }
      break;
    }
    case "RUN_ERROR": view.failed(e.message); break;
    default: break; // RUN_STARTED, TEXT_MESSAGE_END, RUN_FINISHED
  }
}

const PROTOCOLS = { vercel: applyVercel, agui: applyAgui };

// --- server-sent events over fetch ----------------------------------------------------------

// Calls onData(text) with the data of each event; resolves when the body ends.
async function readEvents(response, onData) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
      if (data.length) onData(data.join("\n"));
    }
  }
}

// --- controls -------------------------------------------------------------------------------

let running = null; // the AbortController of the stream being read

async function play() {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  const protocol = $("protocol").value;
  const apply = PROTOCOLS[protocol];
  const query = new URLSearchParams({ example: $("example").value, delay: $("delay").value });
  const view = new View($("turn"));
  try {
    const response = await fetch(`/api/${protocol}?${query}`, { signal: controller.signal });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    await readEvents(response, (data) => {
      if (data === "[DONE]") return; // Vercel's end marker; the body ends right after
      view.events += 1;
      apply(view, JSON.parse(data));
    });
    view.end();
  } catch (error) {
    if (controller.signal.aborted) return;
    view.setState("failed", `failed: ${error}`);
  }
}

async function init() {
  const params = new URLSearchParams(location.search);
  const examples = await (await fetch("/api/examples")).json();
  for (const example of examples) {
    const option = el("option", "", example.name);
    option.value = example.name;
    option.title = `${example.format}: ${example.summary}`;
    $("example").append(option);
  }
  const describe = () => {
    const option = $("example").selectedOptions[0];
    $("about").textContent = option ? option.title : "";
  };
  $("example").addEventListener("change", describe);
  for (const name of ["protocol", "example", "delay"]) {
    const wanted = params.get(name);
    if (wanted === null) continue;
    const select = $(name);
    if (![...select.options].some((o) => o.value === wanted)) select.append(new Option(wanted));
    select.value = wanted;
  }
  describe();
  $("play").addEventListener("click", play);
  if (params.has("autoplay")) play();
}

init();
