import { CopyButton } from "./copy-button";

// Pretty-printed JSON with a title and a copy button; `lines`: an array's values one per line, compact (NDJSON).
export function JsonBlock({
  value,
  title,
  lines = false,
}: {
  value: unknown;
  title: string;
  lines?: boolean;
}) {
  const text = lines
    ? (value as unknown[]).map((v) => JSON.stringify(v)).join("\n")
    : JSON.stringify(value, null, 2);
  return (
    <div className="code-block">
      <div className="code-tabs-bar">
        <span>{title}</span>
        <CopyButton text={text} label={lines ? "Copy NDJSON" : "Copy JSON"} />
      </div>
      <pre className="code" tabIndex={0}>
        <code>{text}</code>
      </pre>
    </div>
  );
}
