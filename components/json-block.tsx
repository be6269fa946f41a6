import { CopyButton } from "./copy-button";

// Pretty-printed JSON with a title and a copy button.
export function JsonBlock({ value, title }: { value: unknown; title: string }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <div className="code-block">
      <div className="code-tabs-bar">
        <span>{title}</span>
        <CopyButton text={text} label="Copy JSON" />
      </div>
      <pre className="code" tabIndex={0}>
        <code>{text}</code>
      </pre>
    </div>
  );
}
