import { CopyButton } from "../copy-button";
import type { Answer } from "./request";

// Reason phrases for the statuses the API answers, when the browser gives none (HTTP/2 has no status text).
const REASONS: Record<number, string> = {
  200: "OK",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

// One answer: status, time and URL, the shown headers, and the body with a copy button (a 304 has none: a note
// says why instead). `item`: the answer is one resource (an item endpoint), not a page of a list.
export function ResponseView({ answer, item = false }: { answer: Answer; item?: boolean }) {
  const tone = answer.status < 400 ? "ok" : answer.status < 500 ? "client-error" : "server-error";
  return (
    <div className={`answer ${tone}`} data-testid="try-it-answer">
      <h3>Response</h3>
      <p className="answer-line">
        <span className={`status-pill ${tone}`} data-testid="try-it-status">
          {answer.status} {answer.statusText || REASONS[answer.status] || ""}
        </span>
        <span className="muted" data-testid="try-it-time">
          {answer.ms} ms
        </span>
        <code className="muted">GET {answer.url}</code>
      </p>
      {answer.headers.length ? (
        <dl className="answer-headers">
          {answer.headers.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>
                <code>{v}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {answer.status === 304 ? (
        <p data-testid="try-it-not-modified">
          <strong>No body: the {item ? "resource" : "list"} is unchanged</strong> since the answer whose ETag
          was sent in <code>If-None-Match: {answer.ifNoneMatch}</code>. Keep the copy you have; this request
          counted against the key&apos;s quota like any other.
        </p>
      ) : (
        <div className="code-block">
          <div className="code-tabs-bar">
            <span>Body</span>
            <CopyButton text={answer.body} label="Copy body" />
          </div>
          <pre className="code" tabIndex={0} data-testid="try-it-body">
            <code>{answer.body}</code>
          </pre>
        </div>
      )}
    </div>
  );
}
