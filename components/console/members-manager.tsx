"use client";
// The members page's interactive part: the members (every member sees them) and, for owners and admins, the invite
// form (email and role; the link shown once, to copy, and mailed when SMTP is configured), the open invitations with
// revoke, and per member "Change role…" and "Remove…" where the user's role allows it (lib/console/member-rules.ts);
// "Leave…" on the user's own row, unless they are the last owner. Each action is confirmed in a modal dialog; the
// server checks the role again.
// Keyboard and screen readers: after an invitation the focus moves to the link's panel and a status line announces
// it; a dialog closes on Escape and gives the focus back to its button (a destructive one opens on Cancel); after a
// change the focus is on the member's row, or on the list's heading when the row is gone; an invalid field gets its
// message next to it, in words, and the focus.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { useHydrated } from "@/components/use-hydrated";
import type { Role } from "@/lib/console/access";
import type { CreatedInvitation, Invitation } from "@/lib/console/invitations";
import type { Member } from "@/lib/console/member-access";
import type { MembersList } from "@/lib/console/members";
import { ConfirmDialog } from "./dialog";
import { formatTime } from "./format";
import { InviteForm } from "./invite-form";
import { ROLE_LABEL, RoleDialog } from "./member-controls";
import { InvitationsTable, MembersTable, rowId } from "./members-table";
import { useConsolePost } from "./use-console-post";

interface Props {
  list: MembersList;
  csrfToken: string;
  /** Whether invitations are also mailed (SMTP_URL is set). */
  mailConfigured: boolean;
}

type Pending =
  | { action: "role" | "remove"; member: Member }
  | { action: "leave"; member: Member }
  | { action: "revoke"; invitation: Invitation }
  | null;

type FocusTarget = { to: "panel" } | { to: "id"; id: string } | null;

// The list and the controls the user's role allows.
export function MembersManager({ list, csrfToken, mailConfigured }: Props) {
  const router = useRouter();
  const hydrated = useHydrated();
  const actionPost = useConsolePost(csrfToken);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [announcement, setAnnouncement] = useState("");
  const [focus, setFocus] = useState<FocusTarget>(null);
  const panelRef = useRef<HTMLElement>(null);
  const base = `/api/console/orgs/${encodeURIComponent(list.org.slug)}/members`;

  useEffect(() => {
    if (!focus) return;
    const el = focus.to === "panel" ? panelRef.current : document.getElementById(focus.id);
    if (el) {
      el.focus();
      setFocus(null);
    }
  }, [focus, list, created]);

  function invited(made: CreatedInvitation) {
    setCreated(made);
    setAnnouncement(
      `Invitation for ${made.invitation.email} created. Copy the link now: it is shown only once.` +
        (made.mailed ? " It was also mailed." : ""),
    );
    setFocus({ to: "panel" });
    router.refresh();
  }

  async function changeRole(member: Member, role: Role) {
    const done = await actionPost.post<Member>(`${base}/${encodeURIComponent(member.userId)}/role`, { role });
    if (!done) return;
    setAnnouncement(`${member.email} is now ${ROLE_LABEL[role].toLowerCase()}.`);
    setPending(null);
    setFocus({ to: "id", id: rowId(member.userId) });
    router.refresh();
  }

  async function remove(member: Member) {
    if (!(await actionPost.post(`${base}/${encodeURIComponent(member.userId)}/remove`, {}))) return;
    setAnnouncement(`${member.email} was removed; their console sessions ended.`);
    setPending(null);
    setFocus({ to: "id", id: "members-title" });
    router.refresh();
  }

  async function leave() {
    if (!(await actionPost.post(`${base}/leave`, {}))) return;
    setPending(null);
    router.push("/console");
    router.refresh();
  }

  async function revoke(invitation: Invitation) {
    const path = `${base}/invitations/${encodeURIComponent(invitation.id)}/revoke`;
    if (!(await actionPost.post(path, {}))) return;
    setCreated((c) => (c?.invitation.id === invitation.id ? null : c));
    setAnnouncement(`The invitation for ${invitation.email} was revoked: its link no longer works.`);
    setPending(null);
    setFocus({ to: "id", id: "invitations-title" });
    router.refresh();
  }

  // A dialog closed (Escape, Cancel): the focus back on its button unless the action moved it.
  function closeDialog() {
    if (!pending) return;
    const id =
      pending.action === "revoke"
        ? `revoke-${pending.invitation.id}`
        : `${pending.action}-${pending.member.userId}`;
    setPending(null);
    actionPost.setError(null);
    setFocus((f) => f ?? { to: "id", id });
  }

  function doneWithLink() {
    setCreated(null);
    setAnnouncement("");
    setFocus({ to: "id", id: "invite-email" });
  }

  return (
    <>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {created ? (
        <section className="new-key" aria-labelledby="new-invitation-title" ref={panelRef} tabIndex={-1}>
          <h2 id="new-invitation-title">Invitation link for {created.invitation.email}</h2>
          <p>
            Copy it now and send it to them: it is shown only once. It works once, as{" "}
            {created.invitation.role}, until {formatTime(created.invitation.expiresAt)}.
            {created.mailed ? " It was also mailed to them." : ""}
          </p>
          <code>{created.url}</code>
          <div className="row-actions">
            <CopyButton text={created.url} label="Copy link" />
            <button type="button" className="secondary" onClick={doneWithLink}>
              Done
            </button>
          </div>
        </section>
      ) : null}

      {list.canManage ? (
        <InviteForm
          list={list}
          base={base}
          csrfToken={csrfToken}
          mailConfigured={mailConfigured}
          hydrated={hydrated}
          onCreated={invited}
        />
      ) : null}

      <MembersTable
        list={list}
        csrfToken={csrfToken}
        hydrated={hydrated}
        onAction={(action, member) => setPending({ action, member })}
      />

      {list.canManage ? (
        <InvitationsTable
          invitations={list.invitations}
          hydrated={hydrated}
          onRevoke={(invitation) => setPending({ action: "revoke", invitation })}
        />
      ) : null}

      <RoleDialog
        member={pending?.action === "role" ? pending.member : null}
        roles={list.grantableRoles}
        busy={actionPost.busy}
        error={actionPost.error}
        onSave={changeRole}
        onClose={closeDialog}
      />
      <ConfirmDialog
        open={pending?.action === "remove"}
        title={pending?.action === "remove" ? `Remove ${pending.member.email}?` : ""}
        action="Remove"
        busy={actionPost.busy}
        error={actionPost.error}
        onConfirm={() => pending?.action === "remove" && remove(pending.member)}
        onClose={closeDialog}
      >
        They lose access to {list.org.name} at once and every console session of their account ends; their
        account remains. Invite them again to bring them back.
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.action === "leave"}
        title={`Leave ${list.org.name}?`}
        action="Leave"
        busy={actionPost.busy}
        error={actionPost.error}
        onConfirm={leave}
        onClose={closeDialog}
      >
        You lose access to its keys, members and logs at once. To come back, you need a new invitation.
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.action === "revoke"}
        title={pending?.action === "revoke" ? `Revoke the invitation for ${pending.invitation.email}?` : ""}
        action="Revoke"
        busy={actionPost.busy}
        error={actionPost.error}
        onConfirm={() => pending?.action === "revoke" && revoke(pending.invitation)}
        onClose={closeDialog}
      >
        Its link stops working at once; you can invite them again afterwards.
      </ConfirmDialog>
    </>
  );
}
