// The reference overview with the preview `webhooks` on shows the document's webhook (read from its top-level
// `webhooks`): its headers, its body (the feed's ChangeEvent, fields and example) and the guide's link; off, nothing
// of it (the V1 pages' byte-for-byte check is reference-pages.test.ts).
import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";

vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/navigation", () => ({ usePathname: () => "/reference", notFound: () => {} }));

const { default: ReferenceIndex } = await import("@/app/reference/page");
const { getReferenceWebhooks } = await import("@/lib/portal/reference");

function render(preview: string): string {
  vi.stubEnv("PUBLIC_API_PREVIEW", preview);
  vi.stubEnv("PUBLIC_BASE_URL", "https://catalog.example.test");
  vi.stubEnv("DATABASE_URL", "");
  resetConfig();
  return renderToStaticMarkup(ReferenceIndex() as ReactElement);
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

describe("the reference overview", () => {
  it("shows the webhook while the preview is on: headers, the ChangeEvent body, an example, the guide", () => {
    const html = render("webhooks");
    const [w] = getReferenceWebhooks();
    expect(w).toMatchObject({ name: "catalogChange", preview: true, bodySchemaName: "ChangeEvent" });
    expect(w!.headers.map((h) => h.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    expect(w!.bodyFields.map((f) => f.name)).toEqual(["cursor", "type", "id", "op", "at", "item"]);
    expect(html).toContain('data-testid="webhook-catalogChange"');
    expect(html).toMatch(/Webhook <code>catalogChange<\/code> <span class="tag changed">Preview<\/span>/);
    for (const h of ["webhook-id", "webhook-timestamp", "webhook-signature"]) expect(html).toContain(h);
    expect(html).toContain("<code>ChangeEvent</code>");
    expect(html).toContain('href="/docs/webhooks"');
    expect(html).toContain("&quot;cursor&quot;: &quot;1233&quot;");
  });

  it("shows no webhook while the preview is off", () => {
    for (const preview of ["", "changes,export", "writes,details"]) {
      expect(render(preview), preview).not.toMatch(/webhook/i);
      expect(getReferenceWebhooks(), preview).toEqual([]);
    }
  });
});
