import type { Metadata } from "next";
import Link from "next/link";
import { MembersManager } from "@/components/console/members-manager";
import { listOrgMembers } from "@/lib/console/members";
import { pageRead, pageSession } from "../../page-session";

export const metadata: Metadata = { title: "Members" };
export const dynamic = "force-dynamic";

// What the user's role lets them do here, in words.
function whatYouMayDo(role: "owner" | "admin" | "member"): string {
  if (role === "owner")
    return "As an owner you invite people, change anyone's role (owners included), remove members and revoke invitations.";
  if (role === "admin")
    return "As an admin you invite members and admins, change their roles, remove them and revoke invitations; owners' roles are changed by owners only.";
  return "As a member you see who belongs to this organization and may leave it; owners and admins invite and manage members.";
}

// An organization's members: the list for every member; invite, change a role, remove and revoke for owners and
// admins (owners alone make or unmake owners); leave for anyone but the last owner.
export default async function MembersPage({ params }: { params: Promise<{ org: string }> }) {
  const { org: slug } = await params;
  const { db, config, user, csrfToken } = await pageSession(`/console/${slug}/members`);
  const listed = await pageRead(listOrgMembers(db, user, slug), slug);
  return (
    <div className="docs-content">
      <h1>Members · {listed.org.name}</h1>
      <p className="lead">
        Owners manage everything, and only owners make or unmake owners. Admins invite, change and remove
        members and admins. Members see this list. Anyone may leave, except the last owner: an organization
        always keeps one.
      </p>
      <p>
        {whatYouMayDo(listed.role)}
        {listed.canManage ? (
          <>
            {" "}
            Every change is recorded in the{" "}
            <Link href={`/console/${encodeURIComponent(listed.org.slug)}/audit`}>audit log</Link>.
          </>
        ) : null}
      </p>
      <MembersManager list={listed} csrfToken={csrfToken} mailConfigured={Boolean(config.SMTP_URL)} />
    </div>
  );
}
