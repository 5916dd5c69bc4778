// The page of `anchorgate serve`: ask through the event stream, show the answer, its quotes, the
// gate's trace and the thread's checkpoints. Every text from the server goes in through
// textContent (never innerHTML), so a passage holding markup is shown as text and cannot run.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { threadId: null, budget: 0, citations: [], passages: {}, thresholds: {} };

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function headers() {
  const h = { "Content-Type": "application/json" };
  const key = $("api-key").value.trim();
  if (key) h.Authorization = "Bearer " + key;
  return h;
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

async function failure(response) {
  let detail = response.status + " " + response.statusText;
  try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON: keep the status */ }
  if (response.status === 401) $("key-box").open = true;
  return "Error " + response.status + ": " + detail;
}

function setTokens(spent, budget) {
  const share = budget ? Math.min(1, spent / budget) : 0;
  $("token-fill").style.width = (share * 100).toFixed(1) + "%";
  $("token-fill").classList.toggle("over", spent > budget);
  $("token-bar").setAttribute("aria-valuenow", String(spent));
  $("token-bar").setAttribute("aria-valuemax", String(budget));
  $("token-text").textContent = "tokens spent: " + spent + " of " + budget;
}

function resetRun() {
  showError("");
  for (const id of ["progress", "reader"]) $(id).replaceChildren();
  $("trace").tBodies[0].replaceChildren();
  $("reader").hidden = true;
  for (const id of ["outcome", "trace-section", "thread-section"]) $(id).hidden = true;
  $("quote-view").hidden = true;
  $("run").hidden = false;
  setTokens(0, state.budget);
}

function signalCell(signals) {
  const cell = el("td");
  for (const [name, value] of Object.entries(signals || {})) {
    const limit = state.thresholds[name];
    if (!limit || typeof value !== "number") continue;
    const met = limit.compare === ">=" ? value >= limit.value : value <= limit.value;
    const line = el("div", name + " " + value.toFixed(2) + " " + limit.compare + " " + limit.value + " (" + limit.setting + ")",
      met ? "ok" : "short");
    cell.append(line);
  }
  if (!cell.childElementCount) cell.textContent = "-";
  return cell;
}

function addTrace(entry) {
  const row = el("tr");
  row.append(el("td", entry.round ?? "-"), el("td", entry.action), el("td", entry.reason), signalCell(entry.signals));
  $("trace").tBodies[0].append(row);
  $("trace-section").hidden = false;
}

function onEvent(name, data) {
  if (name === "accepted") {
    state.threadId = data.thread_id; state.budget = data.budget; state.thresholds = data.thresholds || {};
    setTokens(0, data.budget);
  } else if (name === "node_finished" || name === "gate_decision" || name === "final") {
    const label = name === "gate_decision" ? "gate: " + data.action + " (" + data.reason + ")" : data.node;
    $("progress").append(el("li", label, name === "gate_decision" ? "gate" : ""));
    if (name === "gate_decision") addTrace(data);
  } else if (name === "tokens") {
    setTokens(data.spent, data.budget);
  } else if (name === "reader") {
    $("reader").hidden = false;
    $("reader").append(document.createTextNode(data.text));
  } else if (name === "error") {
    showError("Error " + data.status + ": " + data.detail);
  } else if (name === "result") {
    showResult(data.result, data.passages || {});
  }
}

function answerWithMarkers(answer, citations) {
  const box = $("answer");
  box.replaceChildren();
  const numbers = new Set(citations.map((c) => String(c.n)));
  for (const part of String(answer || "").split(/(\[\d+\])/)) {
    const found = /^\[(\d+)\]$/.exec(part);
    if (found && numbers.has(found[1])) {
      const button = el("button", part, "cite");
      button.type = "button";
      button.dataset.n = found[1];
      button.addEventListener("click", () => showQuote(found[1], button));
      box.append(button);
    } else {
      box.append(document.createTextNode(part));
    }
  }
}

function showResult(result, passages) {
  state.citations = result.citations || [];
  state.passages = passages;
  state.threadId = result.thread_id || state.threadId;
  const abstained = result.decision === "ABSTAIN";
  $("decision").textContent = abstained ? "ABSTAIN: no answer the evidence supports (" + result.reason + ")"
    : result.decision + " (" + result.reason + ")";
  $("decision").className = abstained ? "abstain" : "stop";
  answerWithMarkers(result.answer, state.citations);
  const tokens = result.tokens || {};
  $("outcome-facts").textContent = "rounds " + result.rounds + " · tokens " + (tokens.total ?? "-") +
    " · thread " + result.thread_id + (result.latency_s ? " · " + result.latency_s + " s" : "");
  setTokens(tokens.total || 0, state.budget || tokens.total || 0);
  if (!$("trace").tBodies[0].childElementCount) for (const entry of (result.telemetry || {}).gate || []) addTrace(entry);
  $("quote-view").hidden = true;
  $("outcome").hidden = false;
  loadHistory(result.thread_id);
}

function squash(text) { return String(text || "").replace(/\s+/g, " ").trim(); }

function showQuote(n, button) {
  const citation = state.citations.find((c) => String(c.n) === String(n));
  if (!citation) return;
  for (const other of document.querySelectorAll("button.cite")) other.classList.toggle("active", other === button);
  const passage = state.passages[citation.id] || {};
  const text = squash(passage.text), quote = squash(citation.quote);
  const at = quote ? text.indexOf(quote) : -1;
  const block = $("quote-passage");
  block.replaceChildren();
  if (at < 0) {
    block.append(el("mark", quote || "(no quote)"));
  } else {
    block.append(document.createTextNode(text.slice(0, at)), el("mark", quote), document.createTextNode(text.slice(at + quote.length)));
  }
  $("quote-title").textContent = "[" + citation.n + "] " + (citation.title || passage.title || "");
  const page = citation.page || passage.page;
  $("quote-source").textContent = (citation.source || passage.source || "") + (page ? ", page " + page : "") +
    (citation.attributed ? " (attributed)" : "");
  $("quote-view").hidden = false;
}

async function loadHistory(threadId) {
  if (!threadId) return;
  const response = await fetch("/v1/threads/" + encodeURIComponent(threadId) + "/history", { headers: headers() });
  if (!response.ok) return;
  const history = await response.json();
  $("thread-id").textContent = history.thread_id;
  const settings = history.settings || {};
  const budget = (settings.budget || {}).token_budget ?? state.budget;
  $("replay-settings").value = JSON.stringify({ "budget.token_budget": budget });
  const body = $("checkpoints").tBodies[0];
  body.replaceChildren();
  for (const row of history.checkpoints) {
    const tr = el("tr");
    const button = el("button", "replay from here", "replay");
    button.type = "button";
    button.addEventListener("click", () => replayFrom(row.checkpoint_id));
    const action = el("td");
    if (row.next.length) action.append(button);
    tr.append(el("td", row.step), el("td", row.next.join(", ") || "(end)"), el("td", row.round ?? "-"),
      el("td", [row.decision, row.reason].filter(Boolean).join(" ") || "-"), el("td", row.tokens), action);
    body.append(tr);
  }
  $("thread-section").hidden = false;
}

async function replayFrom(checkpointId) {
  let overrides;
  try { overrides = JSON.parse($("replay-settings").value || "{}"); } catch (e) {
    showError("The replay settings are not valid JSON: " + e.message); return;
  }
  resetRun();
  $("progress").append(el("li", "replaying from checkpoint " + checkpointId));
  const response = await fetch("/v1/threads/" + encodeURIComponent(state.threadId) + "/replay",
    { method: "POST", headers: headers(), body: JSON.stringify({ checkpoint_id: checkpointId, overrides }) });
  if (!response.ok) { showError(await failure(response)); return; }
  const result = await response.json();
  state.budget = (overrides && (overrides["budget.token_budget"] || (overrides.budget || {}).token_budget)) || state.budget;
  showResult(result, result.passages || {});
}

async function readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).replace(/^ /, "");
      }
      if (data) onEvent(name, JSON.parse(data));
    }
  }
}

async function ask(event) {
  event.preventDefault();
  const body = { question: $("question").value, preset: $("preset").value };
  const budget = $("budget").value.trim();
  if (budget) body.settings = { "budget.token_budget": Number(budget) };
  $("ask-button").disabled = true;
  try {
    const response = await fetch("/v1/ask/stream", { method: "POST", headers: headers(), body: JSON.stringify(body) });
    if (!response.ok) { showError(await failure(response)); return; }
    state.budget = 0;
    resetRun();
    await readEvents(response);
  } catch (e) {
    showError("The connection failed: " + e.message);
  } finally {
    $("ask-button").disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => $("ask-form").addEventListener("submit", ask));
