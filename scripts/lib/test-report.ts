// What `npm test` reads of the suites' JSON reports: the counts of its summary line, and the tests that failed, or
// passed only on a retry, each with the first line of its error, so that the last lines of a run (all a CI page may
// keep) say which test to look at.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** A test that failed (`failed`), or failed and then passed on a retry (`flaky`). */
export interface FailedTest {
  suite: "unit" | "e2e";
  status: "failed" | "flaky";
  /** File (relative to the project) and, for e2e, line. */
  where: string;
  title: string;
  /** The first non-empty line of its first error, colour codes removed, at most 300 characters. */
  error: string;
}

interface VitestReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name?: string;
    status?: string;
    message?: string;
    assertionResults?: { fullName?: string; title?: string; status?: string; failureMessages?: string[] }[];
  }[];
}

interface PlaywrightSuite {
  title?: string;
  file?: string;
  specs?: {
    title?: string;
    file?: string;
    line?: number;
    tests?: {
      status?: string;
      projectName?: string;
      results?: { status?: string; error?: { message?: string }; errors?: { message?: string }[] }[];
    }[];
  }[];
  suites?: PlaywrightSuite[];
}

interface PlaywrightReport {
  stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
  suites?: PlaywrightSuite[];
}

const readJson = <T>(file: string): T | undefined =>
  existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;

const ANSI = /\x1b\[[0-9;]*m/g;

export function firstLine(message: string | undefined): string {
  const line =
    (message ?? "")
      .replace(ANSI, "")
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? "";
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}

export function vitestCounts(report: VitestReport): Counts {
  // A file that fails before its tests run (an import that does not resolve) reports no test: count it as one.
  const brokenFiles = (report.testResults ?? []).filter(
    (f) => f.status === "failed" && !f.assertionResults?.length,
  ).length;
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + brokenFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

export function vitestFailures(report: VitestReport, root: string): FailedTest[] {
  const out: FailedTest[] = [];
  for (const file of report.testResults ?? []) {
    const where = file.name ? path.relative(root, file.name) : "?";
    const failed = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of failed)
      out.push({
        suite: "unit",
        status: "failed",
        where,
        title: t.fullName ?? t.title ?? "?",
        error: firstLine(t.failureMessages?.[0]),
      });
    if (file.status === "failed" && failed.length === 0)
      out.push({
        suite: "unit",
        status: "failed",
        where,
        title: "(the file itself)",
        error: firstLine(file.message),
      });
  }
  return out;
}

export function playwrightCounts(report: PlaywrightReport): Counts {
  const s = report.stats ?? {};
  return { passed: s.expected ?? 0, failed: (s.unexpected ?? 0) + (s.flaky ?? 0), skipped: s.skipped ?? 0 };
}

export function playwrightFailures(report: PlaywrightReport): FailedTest[] {
  const out: FailedTest[] = [];
  const walk = (suite: PlaywrightSuite, titles: string[]) => {
    // A file's suite is titled by the file's path, which `where` already says.
    const here = suite.title && suite.title !== suite.file ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected" && test.status !== "flaky") continue;
        const firstFailure = (test.results ?? []).find(
          (r) => r.status !== "passed" && r.status !== "skipped",
        );
        out.push({
          suite: "e2e",
          status: test.status === "flaky" ? "flaky" : "failed",
          where: `${spec.file ?? suite.file ?? "?"}:${spec.line ?? "?"}`,
          title: [test.projectName ? `[${test.projectName}]` : "", ...here, spec.title ?? "?"]
            .filter(Boolean)
            .join(" › "),
          error: firstLine(firstFailure?.error?.message ?? firstFailure?.errors?.[0]?.message),
        });
      }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return out;
}

/** The counts and failures of the reports that exist (a step not run wrote none). */
export function readReports(
  vitestJson: string,
  playwrightJson: string,
  root: string,
): { counts: Counts; failures: FailedTest[] } {
  const v = readJson<VitestReport>(vitestJson);
  const p = readJson<PlaywrightReport>(playwrightJson);
  const parts = [v && vitestCounts(v), p && playwrightCounts(p)].filter(Boolean) as Counts[];
  const counts = parts.reduce(
    (a, c) => ({ passed: a.passed + c.passed, failed: a.failed + c.failed, skipped: a.skipped + c.skipped }),
    { passed: 0, failed: 0, skipped: 0 },
  );
  return { counts, failures: [...(v ? vitestFailures(v, root) : []), ...(p ? playwrightFailures(p) : [])] };
}

export function formatFailures(failures: FailedTest[]): string[] {
  return failures.flatMap((f) => [
    `  ${f.status === "flaky" ? "~ flaky (passed on retry)" : "✘ failed"} [${f.suite}] ${f.where} › ${f.title}`,
    ...(f.error ? [`      ${f.error}`] : []),
  ]);
}
