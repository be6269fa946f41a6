import { curlSample } from "@/lib/portal/code-samples";
import { CopyButton } from "../copy-button";

// A word for the shell, single-quoted.
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

// The curl command of the request (the key as $PCA_API_KEY, never the real one; If-None-Match when sent), with a
// copy button.
export function CurlPreview({
  baseUrl,
  path,
  query,
  ifNoneMatch,
}: {
  baseUrl: string;
  path: string;
  query: [string, string][];
  ifNoneMatch?: string;
}) {
  let curl = curlSample({ baseUrl, path, query, key: "$PCA_API_KEY" });
  if (ifNoneMatch) curl += ` \\\n  -H ${shellQuote(`If-None-Match: ${ifNoneMatch}`)}`;
  return (
    <div className="code-block">
      <div className="code-tabs-bar">
        <span>Equivalent curl</span>
        <CopyButton text={curl} label="Copy curl" />
      </div>
      <pre className="code" tabIndex={0} data-testid="try-it-curl">
        <code>{curl}</code>
      </pre>
    </div>
  );
}
