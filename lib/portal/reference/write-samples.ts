import type { Json } from "./types";

// Code samples of one write (the body sent as JSON with a fresh Idempotency-Key) in the reference's languages.
export function writeSamples(r: {
  baseUrl: string;
  path: string;
  body: Json;
  key: string;
}): Record<"curl" | "javascript" | "python", string> {
  const url = `${r.baseUrl}${r.path}`;
  const json = JSON.stringify(r.body, null, 2);
  const env = r.key.replace(/^\$/, "");
  const indent = (text: string, by: string) => text.replace(/\n/g, `\n${by}`);
  return {
    curl: [
      `curl -sS -X POST '${url}' \\`,
      `  -H "Authorization: Bearer ${r.key}" \\`,
      "  -H 'Content-Type: application/json' \\",
      '  -H "Idempotency-Key: $(openssl rand -hex 16)" \\',
      "  --data-binary @- <<'JSON'",
      json,
      "JSON",
    ].join("\n"),
    javascript: [
      `const product = ${indent(json, "")};`,
      "",
      `const response = await fetch(${JSON.stringify(url)}, {`,
      '  method: "POST",',
      "  headers: {",
      `    Authorization: \`Bearer \${process.env.${env}}\`,`,
      '    "Content-Type": "application/json",',
      '    "Idempotency-Key": crypto.randomUUID(), // reuse it when you retry this same request',
      "  },",
      "  body: JSON.stringify(product),",
      "});",
      "const body = await response.json();",
      "if (!response.ok) throw new Error(`${body.statusCode} ${body.code}: ${JSON.stringify(body.details)}`);",
      'console.log(body.id, response.headers.get("Location"));',
    ].join("\n"),
    python: [
      "import os",
      "import uuid",
      "",
      "import requests",
      "",
      `product = ${indent(
        json
          .replace(/\btrue\b/g, "True")
          .replace(/\bfalse\b/g, "False")
          .replace(/\bnull\b/g, "None"),
        "",
      )}`,
      "response = requests.post(",
      `    ${JSON.stringify(url)},`,
      "    json=product,",
      "    headers={",
      `        "Authorization": f"Bearer {os.environ['${env}']}",`,
      '        "Idempotency-Key": str(uuid.uuid4()),  # reuse it when you retry this same request',
      "    },",
      "    timeout=10,",
      ")",
      "body = response.json()",
      "if not response.ok:",
      "    raise RuntimeError(f\"{body['statusCode']} {body['code']}: {body.get('details')}\")",
      'print(body["id"], response.headers["Location"])',
    ].join("\n"),
  };
}
