import type { Metadata } from "next";
import Link from "next/link";
import { ResetPasswordForm } from "@/components/console/reset-password-form";
import { resetLinkEmail } from "@/lib/console/account";
import { getRuntime } from "@/lib/runtime";

export const metadata: Metadata = {
  title: "Set a new password",
  robots: { index: false },
  referrer: "no-referrer",
};
export const dynamic = "force-dynamic";

// A password reset link: the form while the link works; an unknown, used or expired link gets one clear page.
export default async function ResetPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const email = await resetLinkEmail(await getRuntime().db(), token);
  if (!email)
    return (
      <div className="sign-in">
        <h1>This link no longer works</h1>
        <p className="lead">
          A password reset link works once, for an hour. Ask an owner of your organization for a new one.
        </p>
        <p>
          <Link href="/console/sign-in">Go to sign-in</Link>
        </p>
      </div>
    );
  return (
    <div className="sign-in">
      <h1>Set a new password</h1>
      <p className="lead">For {email}. Every session of the account is signed out.</p>
      <ResetPasswordForm token={token} />
    </div>
  );
}
