import { useRef, useState, type FormEvent } from "react";
import { vendorApi } from "../api/vendor-api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Field } from "../components/field.tsx";
import pageStyles from "../components/page.module.css";
import { count } from "../format.ts";
import { useResource } from "../hooks/use-resource.ts";
import { useSession } from "../session/session-context.tsx";
import { streamChat, type ChatMessage, type ChatResult } from "./chat-stream.ts";
import styles from "./playground.module.css";

interface Turn extends ChatMessage {
  requestId?: string | null;
}

/**
 * Try a key: paste its plaintext (held in this page's memory only: never stored, never sent but
 * in the Authorization header of the chat itself), pick any model of its server option, and send a
 * chat to /v1/chat/completions on the same address with `stream: true`; the answer renders as the
 * tokens arrive, then its usage and request id.
 */
export function PlaygroundPage() {
  const { api, can } = useSession();
  const keysReadable = can("keys:read");
  const keys = useResource(() => vendorApi.listKeys(api, { limit: 100, status: "active" }), "playground-keys", keysReadable);
  const options = useResource(() => vendorApi.serverOptions(api), "server-options");
  // A key page's "Try in the playground" names the key (its id only; the secret is pasted here).
  const [keyId, setKeyId] = useState(() => new URLSearchParams(window.location.search).get("key") ?? "");
  const [serverOption, setServerOption] = useState("");
  const [secret, setSecret] = useState("");
  const [model, setModel] = useState("");
  const [prompt, setPrompt] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const [streaming, setStreaming] = useState<string | null>(null);
  const [result, setResult] = useState<ChatResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const abort = useRef<AbortController | null>(null);

  const keyList = keys.data?.data ?? [];
  const chosenKey = keyList.find((key) => key.id === keyId) ?? null;
  const optionName = chosenKey?.server_option ?? (serverOption || options.data?.data[0]?.name || "");
  const option = options.data?.data.find((candidate) => candidate.name === optionName) ?? null;
  const models = option?.models ?? [];
  const chosenModel = models.includes(model) ? model : (models[0] ?? "");
  const busy = streaming !== null;

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const text = prompt.trim();
    if (!text || !secret.trim() || !chosenModel) return;
    const history: Turn[] = [...turns, { role: "user", content: text }];
    setTurns(history);
    setPrompt("");
    setError(null);
    setResult(null);
    setStreaming("");
    const controller = new AbortController();
    abort.current = controller;
    let answer = "";
    try {
      const done = await streamChat({
        key: secret.trim(),
        model: chosenModel,
        messages: history.map(({ role, content }) => ({ role, content })),
        signal: controller.signal,
        onToken: (token) => {
          answer += token;
          setStreaming(answer);
        },
      });
      setResult(done);
      setTurns([...history, { role: "assistant", content: answer, requestId: done.requestId }]);
    } catch (failure) {
      if (answer) setTurns([...history, { role: "assistant", content: answer }]);
      if (!(failure instanceof DOMException && failure.name === "AbortError")) setError(failure);
    } finally {
      abort.current = null;
      setStreaming(null);
    }
  };

  return (
    <>
      <h1>Playground</h1>
      <p className="muted">
        Send a chat with one of your keys, as a customer would. The key you paste stays in this page's memory only and is sent only to this gateway's{" "}
        <code>/v1/chat/completions</code>.
      </p>
      <ErrorBanner error={keys.error} />
      <ErrorBanner error={options.error} />
      <form className={`card ${styles.setup}`} aria-label="Key and model" onSubmit={(event) => event.preventDefault()}>
        {keysReadable ? (
          <Field label="Key" hint="Its server option decides the models.">
            {(id, hint) => (
              <select id={id} aria-describedby={hint} value={keyId} onChange={(event) => setKeyId(event.target.value)}>
                <option value="">Choose a key…</option>
                {keyList.map((key) => (
                  <option key={key.id} value={key.id}>
                    {key.name || "Unnamed key"} ({key.prefix}…, {key.server_option})
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : (
          <Field label="Server option">
            {(id) => (
              <select id={id} value={optionName} onChange={(event) => setServerOption(event.target.value)}>
                {(options.data?.data ?? []).map((candidate) => (
                  <option key={candidate.id} value={candidate.name}>
                    {candidate.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}
        <Field label="Key secret" hint={chosenKey ? `Paste the plaintext of ${chosenKey.prefix}… (shown when it was created or rotated).` : "Paste the key's plaintext, sk-…"}>
          {(id, hint) => (
            <input
              id={id}
              aria-describedby={hint}
              type="password"
              autoComplete="off"
              spellCheck={false}
              placeholder="sk-…"
              value={secret}
              onChange={(event) => setSecret(event.target.value)}
            />
          )}
        </Field>
        <Field label="Model">
          {(id) => (
            <select id={id} value={chosenModel} onChange={(event) => setModel(event.target.value)} disabled={models.length === 0}>
              {models.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>

      <section className={styles.conversation} aria-label="Conversation" data-testid="playground-conversation">
        {turns.length === 0 && streaming === null ? <p className="muted">No messages yet.</p> : null}
        {turns.map((turn, index) => (
          <div key={index} className={turn.role === "user" ? styles.user : styles.assistant} data-role={turn.role}>
            <span className={styles.role}>{turn.role === "user" ? "You" : "Assistant"}</span>
            <p className={styles.text}>{turn.content}</p>
          </div>
        ))}
        {streaming !== null ? (
          <div className={styles.assistant} data-role="assistant" aria-busy="true">
            <span className={styles.role}>Assistant</span>
            <p className={styles.text} data-testid="playground-streaming" aria-live="polite">
              {streaming || "…"}
            </p>
          </div>
        ) : null}
      </section>

      {result ? (
        <dl className={`card ${pageStyles.facts}`} data-testid="playground-result">
          <div>
            <dt>Request id</dt>
            <dd>
              <code data-testid="playground-request-id">{result.requestId ?? "—"}</code>
            </dd>
          </div>
          <div>
            <dt>Input tokens</dt>
            <dd data-testid="playground-input-tokens">{count(result.usage?.prompt_tokens)}</dd>
          </div>
          <div>
            <dt>Output tokens</dt>
            <dd data-testid="playground-output-tokens">{count(result.usage?.completion_tokens)}</dd>
          </div>
          <div>
            <dt>Finish</dt>
            <dd>{result.finishReason ?? "—"}</dd>
          </div>
        </dl>
      ) : null}
      <ErrorBanner error={error} />

      <form className={styles.composer} onSubmit={send} aria-label="Send a message">
        <Field label="Message">
          {(id) => (
            <textarea
              id={id}
              rows={3}
              value={prompt}
              onChange={(event) => setPrompt(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) event.currentTarget.form?.requestSubmit();
              }}
              placeholder="Say hello…"
            />
          )}
        </Field>
        <div className={pageStyles.buttons}>
          <button type="submit" className="primary" disabled={busy || !prompt.trim() || !secret.trim() || !chosenModel}>
            {busy ? "Streaming…" : "Send"}
          </button>
          {busy ? (
            <button type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : null}
          <button
            type="button"
            onClick={() => {
              setTurns([]);
              setResult(null);
              setError(null);
            }}
            disabled={busy || turns.length === 0}
          >
            Clear
          </button>
        </div>
      </form>
    </>
  );
}
