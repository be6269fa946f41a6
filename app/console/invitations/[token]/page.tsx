import type { Metadata } from "next";
import Link from "next/link";
import { InvitationAccept } from "@/components/console/invitation-accept";
import { viewInvitation, type InvitationView } from "@/lib/console/invitation-accept";
import { invitationPath } from "@/lib/console/invitations";
import { formatTime } from "@/components/console/format";
import { getRuntime } from "@/lib/runtime";
import { optionalPageSession } from "../../page-session";

export const metadata: Metadata = { title: "Invitation", robots: { index: false }, referrer: "no-referrer" };
export const dynamic = "force-dynamic";

// Why a link no longer works, in words.
function goneMessage(view: InvitationView | null): { title: string; text: string } {
  if (view?.status === "accepted")
    return { title: "This invitation was used already", text: "Each invitation link works once." };
  if (view?.status === "revoked")
    return {
      title: "This invitation was revoked",
      text: "Ask an owner or admin of the organization for a new one.",
    };
  if (view?.status === "expired")
    return {
      title: "This invitation has expired",
      text: `It worked until ${formatTime(view.expiresAt)}. Ask an owner or admin of the organization for a new one.`,
    };
  return {
    title: "This invitation link is not valid",
    text: "Check that the whole link was copied, or ask for a new one.",
  };
}

// An invitation link (/console/invitations/<secret>): join as the signed-in invited account, make the account when
// none exists for the invited email, or say why not (signed in as someone else, expired, used, revoked, unknown).
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const rt = getRuntime();
  const [view, session] = await Promise.all([viewInvitation(await rt.db(), token), optionalPageSession()]);
  const user = session?.user;
  const csrfToken = session?.csrfToken ?? "";
  if (!view || view.status !== "pending") {
    const { title, text } = goneMessage(view);
    return (
      <div className="sign-in">
        <h1>{title}</h1>
        <p className="lead">{text}</p>
        <p>
          <Link href="/console">Go to the console</Link>
        </p>
      </div>
    );
  }
  const role = view.role === "member" ? "a member" : `an ${view.role}`;
  const intro = (
    <p className="lead">
      You are invited to join <strong>{view.org.name}</strong> as {role}, with the email address{" "}
      <strong>{view.email}</strong>. The link works once, until {formatTime(view.expiresAt)}.
    </p>
  );
  const self = invitationPath(token);
  if (user && user.email.toLowerCase() !== view.email) {
    return (
      <div className="sign-in">
        <h1>Invitation to {view.org.name}</h1>
        {intro}
        <p role="note">
          You are signed in as <strong>{user.email}</strong>, not as {view.email}. This invitation can only be
          accepted by {view.email}: sign out (in the bar above), then open this link again.
        </p>
      </div>
    );
  }
  return (
    <div className="sign-in">
      <h1>Invitation to {view.org.name}</h1>
      {intro}
      {user ? (
        <InvitationAccept mode="join" token={token} orgName={view.org.name} csrfToken={csrfToken} />
      ) : view.accountExists ? (
        <p>
          An account exists for {view.email}.{" "}
          <Link href={`/console/sign-in?callbackUrl=${encodeURIComponent(self)}`}>
            Sign in as {view.email}
          </Link>{" "}
          to accept.
        </p>
      ) : (
        <InvitationAccept mode="register" token={token} orgName={view.org.name} email={view.email} />
      )}
    </div>
  );
}
