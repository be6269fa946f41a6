// The guides as the portal shows them: for each guide its slug, title, description and the HTML its page
// renders (through the same `renderMarkdown` as the `Markdown` component), plus the sections the search
// indexes, compared with a snapshot recorded before the guides moved out of template strings. The
// configuration is not the default one, so that a value the guides take from code (base URL, rate limits)
// cannot be written into the markdown by hand without this test noticing.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resetConfig } from "@/lib/config";
import { getGuide, getGuides } from "@/lib/portal/guides";
import { renderMarkdown } from "@/lib/portal/markdown";
import { searchIndex } from "@/lib/portal/search";

const ENV = {
  PUBLIC_BASE_URL: "https://catalog.example.test",
  RATE_LIMIT_REQUESTS: "120",
  RATE_LIMIT_WINDOW_SECONDS: "30",
  AUTH_FAILURE_LIMIT: "7",
  AUTH_FAILURE_WINDOW_SECONDS: "90",
};

beforeAll(() => {
  for (const [name, value] of Object.entries(ENV)) vi.stubEnv(name, value);
  resetConfig();
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

describe("guides", () => {
  it("keep their order, titles and descriptions", () => {
    expect(
      getGuides().map(({ slug, title, description }) => ({ slug, title, description })),
    ).toMatchSnapshot();
  });

  it.each([
    "getting-started",
    "authentication",
    "pagination",
    "errors",
    "rate-limits",
    "concepts",
    "versioning",
  ])("%s renders the same HTML", (slug) => {
    const guide = getGuide(slug);
    expect(guide).toBeDefined();
    expect(renderMarkdown(guide!.markdown)).toMatchSnapshot();
  });

  it("give the search the same sections", () => {
    expect(searchIndex().filter((d) => d.kind === "Guide")).toMatchSnapshot();
  });

  it("has no guide for an unknown slug", () => {
    expect(getGuide("nope")).toBeUndefined();
  });
});
