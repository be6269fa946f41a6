// The webhooks' retry schedule (issue 25: "at least 24 h") and the preview switch: `webhooks` turns `changes` on,
// WEBHOOKS_ALLOW_PRIVATE_URLS is off unless set.
import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { parsePreviewList, withNeeds } from "@/lib/preview";
import { RETRY_LIMIT, retryWindows } from "@/lib/webhooks/schedule";

describe("webhooks' retry schedule", () => {
  it("spans more than 24 hours even with the jitter at its lowest, each wait growing then capped at 6 h", () => {
    const w = retryWindows();
    expect(w).toHaveLength(RETRY_LIMIT);
    const least = w.reduce((s, r) => s + r.minSeconds, 0);
    const most = w.reduce((s, r) => s + r.maxSeconds, 0);
    expect(least).toBe(95_505);
    expect(least).toBeGreaterThan(24 * 3600);
    expect(most).toBe(117_090);
    expect(w[0]).toEqual({ retry: 1, minSeconds: 15, maxSeconds: 30 });
    for (let i = 1; i < w.length; i++) expect(w[i]!.minSeconds).toBeGreaterThanOrEqual(w[i - 1]!.minSeconds);
    expect(w.at(-1)).toEqual({ retry: RETRY_LIMIT, minSeconds: 21_600, maxSeconds: 21_600 });
  });
});

describe("webhooks' switches", () => {
  it("turns changes on with webhooks, and is in `all`", () => {
    expect(withNeeds(["webhooks"])).toEqual(["changes", "webhooks"]);
    expect(parsePreviewList("all")).toEqual({
      features: ["writes", "details", "changes", "export", "webhooks"],
    });
    expect(loadConfig({ PUBLIC_API_PREVIEW: "webhooks" }).preview).toEqual(["changes", "webhooks"]);
  });

  it("allows private webhook URLs only when told", () => {
    expect(loadConfig({}).WEBHOOKS_ALLOW_PRIVATE_URLS).toBe(false);
    expect(loadConfig({ WEBHOOKS_ALLOW_PRIVATE_URLS: "true" }).WEBHOOKS_ALLOW_PRIVATE_URLS).toBe(true);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE_URLS: "yes please" })).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE_URLS/,
    );
  });
});
