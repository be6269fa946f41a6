import { curlSample } from "@/lib/portal/code-samples";
import { CopyButton } from "../copy-button";

// The curl command of the request (the key as $PCA_API_KEY, never the real one), with a copy button.
export function CurlPreview({
  baseUrl,
  path,
  query,
}: {
  baseUrl: string;
  path: string;
  query: [string, string][];
}) {
  const curl = curlSample({ baseUrl, path, query, key: "$PCA_API_KEY" });
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
