"use client";
// The account page's two-factor section. Off: "Set up" asks the server for a new secret, shown as a QR code and as
// text, then a code of the app turns it on and the 10 recovery codes are shown once. On: new recovery codes (a current
// code needed) and "Turn off" (password and a code needed). The focus follows each step (the set-up's code field, the
// recovery codes' panel, the section's title); a status line announces the outcome.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { CopyButton } from "@/components/copy-button";
import { useHydrated } from "@/components/use-hydrated";
import type { TwoFactorStatus } from "@/lib/console/two-factor";
import { Field, FormError, FormFooter } from "./field";
import { formatTime } from "./format";
import { useConsolePost } from "./use-console-post";

interface Setup {
  secret: string;
  qrSvg: string;
}

type Focus = "code" | "codes" | "title" | null;

// The input of a six-digit code of the authenticator app.
const APP_CODE_INPUT = {
  name: "code",
  inputMode: "numeric",
  autoComplete: "one-time-code",
  pattern: "[0-9]{6}",
  maxLength: 6,
  required: true,
} as const;

export function TwoFactorManager({ status, csrfToken }: { status: TwoFactorStatus; csrfToken: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const setupPost = useConsolePost(csrfToken);
  const regenPost = useConsolePost(csrfToken);
  const disablePost = useConsolePost(csrfToken);
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [announcement, setAnnouncement] = useState("");
  const [focus, setFocus] = useState<Focus>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const codeInput = useRef<HTMLInputElement>(null);
  const codesPanel = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!focus) return;
    const el = focus === "code" ? codeInput.current : focus === "codes" ? codesPanel.current : title.current;
    if (el) {
      el.focus();
      setFocus(null);
    }
  }, [focus, setup, codes, status]);

  async function start() {
    const s = await setupPost.post<Setup>("/api/console/account/two-factor/setup", {});
    if (!s) return;
    setSetup(s);
    setFocus("code");
  }

  async function confirm(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get("code") ?? "");
    const r = await setupPost.post<{ recoveryCodes: string[] }>("/api/console/account/two-factor/confirm", {
      code,
    });
    if (!r) return;
    setSetup(null);
    setCodes(r.recoveryCodes);
    setAnnouncement("Two-factor sign-in is on. Save your recovery codes now: they are shown only once.");
    setFocus("codes");
  }

  async function regenerate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const code = String(new FormData(form).get("code") ?? "");
    const r = await regenPost.post<{ recoveryCodes: string[] }>(
      "/api/console/account/two-factor/recovery-codes",
      {
        code,
      },
    );
    if (!r) return;
    form.reset();
    setCodes(r.recoveryCodes);
    setAnnouncement(
      "New recovery codes: the old ones no longer work. Save these now: they are shown only once.",
    );
    setFocus("codes");
  }

  async function disable(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const r = await disablePost.post("/api/console/account/two-factor/disable", {
      password: String(data.get("password") ?? ""),
      code: String(data.get("code") ?? ""),
    });
    if (!r) return;
    form.reset();
    setAnnouncement("Two-factor sign-in is off.");
    setFocus("title");
    router.refresh();
  }

  function codesSaved() {
    setCodes(null);
    setAnnouncement("");
    setFocus("title");
    router.refresh();
  }

  return (
    <section className="console-section" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title" ref={title} tabIndex={-1}>
        Two-factor sign-in
      </h2>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {codes ? (
        <section className="new-key" aria-labelledby="recovery-title" ref={codesPanel} tabIndex={-1}>
          <h3 id="recovery-title">Your recovery codes</h3>
          <p>
            Shown only once: keep them somewhere safe. Each one signs you in once in place of a code, if you
            lose your phone.
          </p>
          <ol className="recovery-codes">
            {codes.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ol>
          <div className="row-actions">
            <CopyButton text={codes.join("\n")} label="Copy codes" />
            <button type="button" className="secondary" onClick={codesSaved}>
              I saved them
            </button>
          </div>
        </section>
      ) : null}
      {status.enabled && !codes ? (
        <>
          <p>
            On since {formatTime(status.enabledAt)}. Signing in with your password asks for a code of your
            app; {status.recoveryCodesLeft} of 10 recovery codes left.
          </p>
          <form className="console-form" onSubmit={regenerate} aria-labelledby="regenerate-title">
            <h3 id="regenerate-title">New recovery codes</h3>
            <Field id="regenerate-code" label="Code from your app">
              <input id="regenerate-code" {...APP_CODE_INPUT} />
            </Field>
            <FormFooter
              error={regenPost.error}
              submit="Get new recovery codes"
              className="secondary"
              disabled={!hydrated || regenPost.busy}
            />
          </form>
          <form className="console-form" onSubmit={disable} aria-labelledby="disable-title">
            <h3 id="disable-title">Turn off two-factor sign-in</h3>
            <Field id="disable-password" label="Your password">
              <input
                id="disable-password"
                name="password"
                type="password"
                autoComplete="current-password"
                required
              />
            </Field>
            <Field id="disable-code" label="Code from your app, or a recovery code">
              <input id="disable-code" name="code" autoComplete="one-time-code" required />
            </Field>
            <FormFooter
              error={disablePost.error}
              submit="Turn off"
              className="secondary danger"
              disabled={!hydrated || disablePost.busy}
            />
          </form>
        </>
      ) : null}
      {!status.enabled && !codes ? (
        setup ? (
          <form className="console-form" onSubmit={confirm} aria-labelledby="setup-title">
            <h3 id="setup-title">Set up two-factor sign-in</h3>
            <p>
              1. Scan this QR code with an authenticator app (Google Authenticator, 1Password, Aegis…), or
              type the key below into it.
            </p>
            <div
              className="two-factor-qr"
              role="img"
              aria-label="QR code of your two-factor key"
              dangerouslySetInnerHTML={{ __html: setup.qrSvg }}
            />
            <p>
              Key: <code className="two-factor-secret">{setup.secret.match(/.{1,4}/g)!.join(" ")}</code>
            </p>
            <Field id="setup-code" label="2. Code from your app">
              <input id="setup-code" ref={codeInput} {...APP_CODE_INPUT} />
            </Field>
            <FormFooter error={setupPost.error} submit="Turn on" disabled={!hydrated || setupPost.busy}>
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  setSetup(null);
                  setupPost.setError(null);
                  setFocus("title");
                }}
              >
                Cancel
              </button>
            </FormFooter>
          </form>
        ) : (
          <>
            <p>
              Off. With it on, signing in with your password also asks for a code of an authenticator app.
            </p>
            <FormError text={setupPost.error} />
            <button type="button" className="primary" disabled={!hydrated || setupPost.busy} onClick={start}>
              Set up two-factor sign-in
            </button>
          </>
        )
      ) : null}
    </section>
  );
}
