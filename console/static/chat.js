// The chat of a conversation's run page (templates/chat.html). It follows
// the run's events (GET /runs/{id}/events, Server-Sent Events) from what
// the page was served with, and shows each message the run takes, each
// answer, the reply the model is writing and the phase, without a reload.
// What a person or a model wrote goes into the page as textContent only.
(function () {
  "use strict";
  const chat = document.getElementById("chat");
  if (!chat || !window.EventSource) return;
  const list = document.getElementById("chat-messages");
  const phase = document.getElementById("chat-phase");
  const form = document.getElementById("chat-form");
  const labels = JSON.parse(chat.dataset.phaseLabels || "{}");
  const utf8 = new TextEncoder();

  // sortKeys orders an object's keys as the server's JSON does, so an
  // answer reads the same live and after a reload.
  function sortKeys(_, v) {
    if (!v || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]));
  }

  // said is what a task or output node says in the chat, worded as the
  // server's chatMessageOf words it (console/chat.go).
  function said(n) {
    const a = n.args || {};
    if (n.kind === "task" && typeof a.message === "string") {
      return { role: "user", who: a.by || "user", text: a.message };
    }
    if (n.kind === "task") {
      const input = JSON.stringify(a.input ?? null, sortKeys);
      const text = a.task || "";
      return { role: "user", who: "user", text: input === "{}" || input === "null" ? text : text + "\n\nInput: " + input };
    }
    if (typeof n.output === "string") return { role: "agent", who: n.agent, text: n.output };
    return { role: "agent", who: n.agent, text: JSON.stringify(n.output ?? null, sortKeys, 2), json: true };
  }

  // bubble is a message's element, as the "chat-message" template builds it.
  function bubble(m) {
    const li = document.createElement("li");
    li.className = "chat-msg " + m.role;
    li.dataset.role = m.role;
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = m.who;
    const text = document.createElement(m.json ? "pre" : "div");
    text.className = "text";
    text.textContent = m.text;
    li.append(who, text);
    return li;
  }

  function show(li) {
    list.append(li);
    list.scrollTop = list.scrollHeight;
  }

  // The reply being written: one bubble, for the request node it streams.
  const pending = () => list.querySelector("li.pending");
  const dropPending = () => pending()?.remove();

  // A node added or settled: a message or answer kept is shown (in place
  // of what the page had for that node), one that was not is taken away.
  function onNode(n) {
    if (n.kind === "request") return settleRequest(n);
    if (n.kind !== "task" && n.kind !== "output") return;
    const had = list.querySelector('li[data-node-id="' + CSS.escape(n.id) + '"]');
    if (n.status !== "completed") return had?.remove();
    const li = bubble(said(n));
    li.dataset.nodeId = n.id;
    if (had) return had.replaceWith(li);
    if (n.kind === "output") dropPending();
    show(li);
  }

  // A request settled: the reply it streamed is its whole content now, or
  // goes (a reply of calls only, a failed request).
  function settleRequest(n) {
    const li = pending();
    if (!li || li.dataset.request !== n.id || n.status === "running" || n.status === "pending") return;
    const content = n.status === "completed" ? n.output?.content : "";
    if (!content) return li.remove();
    li.querySelector(".text").textContent = content;
    li.dataset.bytes = utf8.encode(content).length;
  }

  // Text the model is writing: delta is the reply's text from byte
  // offset; offset 0 (a new attempt, or after a reconnect) starts it
  // again. A delta that does not follow what is shown waits for the
  // settled request, which carries the whole reply.
  function onText(t) {
    let li = pending();
    if (t.offset === 0) {
      li = li || bubble({ role: "agent", who: chat.dataset.agent, text: "" });
      li.classList.add("pending");
      li.querySelector(".text").textContent = "";
      Object.assign(li.dataset, { request: t.node, attempt: t.attempt, bytes: 0 });
      show(li);
    }
    if (!li || li.dataset.request !== t.node || li.dataset.attempt !== String(t.attempt) || Number(li.dataset.bytes) !== t.offset) return;
    li.querySelector(".text").textContent += t.delta;
    li.dataset.bytes = t.offset + utf8.encode(t.delta).length;
  }

  function onPhase(p) {
    chat.dataset.phase = phase.dataset.phase = p;
    phase.textContent = labels[p] || p;
    if (p !== "running") dropPending(); // the turn's answer, if any, is in
  }

  // showError says what went wrong with the stream under the phase; none
  // takes the message away.
  function showError(text) {
    let p = document.getElementById("chat-events-error");
    if (!text) {
      if (p) p.remove();
      return;
    }
    if (!p) {
      p = document.createElement("p");
      p.id = "chat-events-error";
      p.className = "error";
      phase.after(p);
    }
    p.textContent = text;
  }

  // The stream's refusals (the console's bounds on streams: 503, 429 with
  // Retry-After) close an EventSource for good, so the page opens another
  // as long after, from the last event it showed.
  const retryAfter = 5000; // ms, the console's Retry-After
  let last = ""; // the last durable event's id
  function follow(url) {
    const events = new EventSource(url);
    const on = (type, f) =>
      events.addEventListener(type, (e) => {
        if (e.lastEventId) last = e.lastEventId;
        f(JSON.parse(e.data));
      });
    events.addEventListener("open", () => showError(""));
    on("node", (e) => onNode(e.node));
    on("phase", (e) => onPhase(e.phase));
    on("text", onText);
    on("end", () => {
      events.close(); // the run is over: no reconnecting
      form.querySelector("fieldset").disabled = true;
    });
    // The stream's own failure (event: error, with data); a lost
    // connection has none, and the EventSource reconnects by itself; a
    // refused one is closed.
    events.addEventListener("error", (e) => {
      if (e.data) {
        showError("events: " + JSON.parse(e.data).error);
        return;
      }
      if (events.readyState !== EventSource.CLOSED) return;
      showError("events: the console refused the live stream (it serves a bounded number at once); trying again in " + retryAfter / 1000 + "s");
      setTimeout(() => {
        const next = new URL(chat.dataset.events, location.href);
        if (last) next.searchParams.set("after", last);
        follow(next.pathname + next.search);
      }, retryAfter);
    });
  }
  follow(chat.dataset.events);

  // A message taken empties the box; a refused one stays as typed.
  document.getElementById("chat-answer").addEventListener("htmx:afterSwap", (e) => {
    if (e.target.querySelector(".answer.ok")) form.elements.text.value = "";
  });
  // Enter sends; Shift+Enter is a new line.
  form.elements.text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  list.scrollTop = list.scrollHeight;
})();
