// Preview `webhooks` in Chromium on the preview server (PUBLIC_API_PREVIEW=all, WEBHOOKS_ALLOW_PRIVATE_URLS=true):
// an owner registers an endpoint that is a real receiver on loopback, sees its secret once, sends a test event the
// receiver gets and verifies, sees a failure in the deliveries' log (the receiver answering 500), and redelivers it;
// axe clean in each of those states.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { verifyWebhook } from "@/lib/webhooks/signing";
import { expectAxeClean } from "./support/axe";
import { signIn } from "./support/sign-in";

interface Got {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

test("register an endpoint, receive a test event, see a failure in the log, redeliver it", async ({
  page,
}) => {
  const got: Got[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.statusCode = status;
      res.end(status === 200 ? "thanks" : "receiver down");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook-${Date.now()}`;
  try {
    await signIn(page, "owner@acme.example", process.env.PCA_E2E_PREVIEW_DATA_DIR!);
    await page.getByRole("link", { name: "Webhooks" }).click();
    await expect(page.getByRole("heading", { name: /^Webhooks/ })).toBeVisible();
    await expectAxeClean(page, "the webhooks page");
    await page.getByLabel("URL").fill(url);
    await page.getByLabel("Description").fill("e2e receiver");
    await page.getByRole("button", { name: "Register" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const panel = page.locator("article", { has: page.getByRole("heading", { name: url }) });
    await expect(panel).toBeVisible();
    await expectAxeClean(page, "the webhooks page with a new endpoint's secret shown");

    await panel.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status")).toContainText("Test event delivered (200)");
    expect(got).toHaveLength(1);
    const sig = {
      id: String(got[0]!.headers["webhook-id"]),
      timestamp: String(got[0]!.headers["webhook-timestamp"]),
      signature: String(got[0]!.headers["webhook-signature"]),
    };
    expect(sig.id).toMatch(/^test_/);
    expect(verifyWebhook(secret, sig, got[0]!.body)).toBe(true);

    status = 500;
    await panel.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("status")).toContainText("Test event failed: 500");
    const failedId = String(got[1]!.headers["webhook-id"]);
    const row = panel.locator(`tr[data-event="${failedId}"]`);
    await expect(row).toContainText("failed");
    await expect(row).toContainText("receiver down");
    await expectAxeClean(page, "the webhooks page with a failed delivery in the log");

    status = 200;
    await row.getByRole("button", { name: "Redeliver" }).click();
    await expect
      .poll(() => got.filter((g) => g.headers["webhook-id"] === failedId).length, { timeout: 20_000 })
      .toBe(2);
    await expect(row).toContainText("delivered", { timeout: 20_000 });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
