// Code samples of a list request in curl, JavaScript (fetch) and Python (requests); pure, used by server and browser.

// The languages the reference shows, in tab order.
export const SAMPLE_LANGUAGES = [
  { id: "curl", label: "curl" },
  { id: "javascript", label: "JavaScript (fetch)" },
  { id: "python", label: "Python (requests)" },
] as const;

// One sample language id.
export type SampleLanguage = (typeof SAMPLE_LANGUAGES)[number]["id"];

// What a sample needs: absolute base URL, path, query values (empty ones are left out) and the key to show.
export interface SampleRequest {
  baseUrl: string;
  path: string;
  query: [string, string][];
  /** Shown as is; pass a placeholder such as $PCA_API_KEY rather than a real key. */
  key: string;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function jsString(s: string): string {
  return JSON.stringify(s);
}

function pyString(s: string): string {
  return JSON.stringify(s);
}

// The full URL of a request, query encoded.
export function requestUrl(r: SampleRequest): string {
  const qs = new URLSearchParams(r.query.filter(([, v]) => v !== "")).toString();
  return `${r.baseUrl}${r.path}${qs ? `?${qs}` : ""}`;
}

// The key of a request as each language writes it: an environment variable for a `$NAME` placeholder, else the
// literal.
const curlKey = (r: SampleRequest) =>
  r.key.startsWith("$") ? `"Authorization: Bearer ${r.key}"` : shellQuote(`Authorization: Bearer ${r.key}`);
const jsKey = (r: SampleRequest) =>
  r.key.startsWith("$") ? `process.env.${r.key.slice(1)}` : jsString(r.key);
const pyKey = (r: SampleRequest) =>
  r.key.startsWith("$") ? `os.environ[${pyString(r.key.slice(1))}]` : pyString(r.key);

// The curl command of a request.
export function curlSample(r: SampleRequest): string {
  return `curl -sS ${shellQuote(requestUrl(r))} \\\n  -H ${curlKey(r)} \\\n  -H 'Accept: application/json'`;
}

// The JavaScript (fetch) sample of a request.
export function javascriptSample(r: SampleRequest): string {
  const query = r.query.filter(([, v]) => v !== "");
  const keyExpr = jsKey(r);
  const lines = [`const url = new URL(${jsString(`${r.baseUrl}${r.path}`)});`];
  for (const [k, v] of query) lines.push(`url.searchParams.set(${jsString(k)}, ${jsString(v)});`);
  lines.push(
    "",
    "const response = await fetch(url, {",
    `  headers: { Authorization: \`Bearer \${${keyExpr}}\`, Accept: "application/json" },`,
    "});",
    "const body = await response.json();",
    "if (!response.ok) throw new Error(`${body.statusCode} ${body.code}: ${body.message}`);",
    "console.log(body.data, body.pagination);",
  );
  return lines.join("\n");
}

// The Python (requests) sample of a request.
export function pythonSample(r: SampleRequest): string {
  const query = r.query.filter(([, v]) => v !== "");
  const keyExpr = pyKey(r);
  const lines = [r.key.startsWith("$") ? "import os\n\nimport requests" : "import requests", ""];
  lines.push(`api_key = ${keyExpr}`, "response = requests.get(");
  lines.push(`    ${pyString(`${r.baseUrl}${r.path}`)},`);
  if (query.length) {
    lines.push("    params={");
    for (const [k, v] of query) lines.push(`        ${pyString(k)}: ${pyString(v)},`);
    lines.push("    },");
  }
  lines.push(`    headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},`);
  lines.push("    timeout=10,", ")");
  lines.push(
    "body = response.json()",
    "response.raise_for_status()",
    'print(body["data"], body["pagination"])',
  );
  return lines.join("\n");
}

// Every sample of a request, by language.
export function allSamples(r: SampleRequest): Record<SampleLanguage, string> {
  return { curl: curlSample(r), javascript: javascriptSample(r), python: pythonSample(r) };
}

// Every sample of an export (a stream of JSON lines, preview `export`): the lines read as they come, the last id
// kept to resume a cut stream with `after`, the end line's cursor where the change feed continues.
export function streamSamples(r: SampleRequest): Record<SampleLanguage, string> {
  const file = `${r.path.split("/").pop()}.ndjson`;
  const curl = [
    `curl -sS --compressed ${shellQuote(requestUrl(r))} \\`,
    `  -H ${curlKey(r)} \\`,
    `  -o ${file}`,
    `tail -n 1 ${file}  # {"end":true,…}: the export is whole`,
  ].join("\n");
  const javascript = [
    `const url = new URL(${jsString(requestUrl(r))});`,
    "",
    `const response = await fetch(url, { headers: { Authorization: \`Bearer \${${jsKey(r)}}\` } });`,
    "if (!response.ok) {",
    "  const body = await response.json();",
    "  throw new Error(`${body.statusCode} ${body.code}: ${body.message}`);",
    "}",
    "// One JSON object per line: the items in id order, then the end line.",
    "const decoder = new TextDecoder();",
    'let pending = "";',
    "let lastId;",
    "let end;",
    "try {",
    "  for await (const chunk of response.body) {",
    "    pending += decoder.decode(chunk, { stream: true });",
    '    const lines = pending.split("\\n");',
    "    pending = lines.pop();",
    "    for (const line of lines) {",
    '      if (line === "") continue;',
    "      const value = JSON.parse(line);",
    "      if (value.end) end = value;",
    "      else lastId = value.id; // keep the item here",
    "    }",
    "  }",
    "} catch {",
    "  // The connection was lost: the lines read so far are good.",
    "}",
    "if (!end) throw new Error(`export cut: ask again with after=${lastId}`);",
    "console.log(`${end.count} items; the change feed continues from cursor ${end.cursor}`);",
  ].join("\n");
  const python = [
    r.key.startsWith("$") ? "import json\nimport os\n\nimport requests" : "import json\n\nimport requests",
    "",
    `api_key = ${pyKey(r)}`,
    "end = None",
    "last_id = None",
    "with requests.get(",
    `    ${pyString(requestUrl(r))},`,
    '    headers={"Authorization": f"Bearer {api_key}"},',
    "    stream=True,",
    "    timeout=60,",
    ") as response:",
    "    response.raise_for_status()",
    "    try:",
    "        for line in response.iter_lines():",
    "            if not line:",
    "                continue",
    "            value = json.loads(line)",
    '            if value.get("end"):',
    "                end = value",
    "            else:",
    '                last_id = value["id"]  # keep the item here',
    "    except requests.exceptions.RequestException:",
    "        pass  # the connection was lost: the lines read so far are good",
    "if end is None:",
    '    raise RuntimeError(f"export cut: ask again with after={last_id}")',
    'print(end["count"], "items; the change feed continues from cursor", end["cursor"])',
  ].join("\n");
  return { curl, javascript, python };
}

// A path template (`/public/v1/products/{id}`) with each `{name}` replaced by its value, percent-encoded as one path
// segment; a parameter without a value is left as `{name}`.
export function expandPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = (values[name] ?? "").trim();
    return v === "" ? whole : encodeURIComponent(v);
  });
}
