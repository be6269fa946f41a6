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
import { PasswordResetButton } from "./password-reset-button";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { CopyButton } from "@/components/copy-button";
import { DataTable } from "@/components/data-table";
import { useHydrated } from "@/components/use-hydrated";
import type { Role } from "@/lib/console/access";
import { mayManage } from "@/lib/console/member-rules";
import type { CreatedInvitation, Invitation, Member, MembersList } from "@/lib/console/members";
import { useFieldErrors } from "./field-error";
import { ConfirmDialog, Dialog, DialogButtons } from "./dialog";
import { Field, FormFooter } from "./field";
import { formatTime } from "./format";
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

// The invite form's inputs, by the code the server names their field with.
const INVITE_INPUTS = { email: "invite-email", role: "invite-role" };

const ROLE_LABEL: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };
const rowId = (userId: string) => `member-row-${userId}`;

// The list and the controls the user's role allows.
export function MembersManager({ list, csrfToken, mailConfigured }: Props) {
  const router = useRouter();
  const hydrated = useHydrated();
  const invitePost = useConsolePost(csrfToken);
  const actionPost = useConsolePost(csrfToken);
  const [created, setCreated] = useState<CreatedInvitation | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [announcement, setAnnouncement] = useState("");
  const [focus, setFocus] = useState<FocusTarget>(null);
  const [formVersion, setFormVersion] = useState(0);
  const panelRef = useRef<HTMLElement>(null);
  const base = `/api/console/orgs/${encodeURIComponent(list.org.slug)}/members`;
  const lastOwner = list.role === "owner" && list.ownerCount <= 1;

  useEffect(() => {
    if (!focus) return;
    const el = focus.to === "panel" ? panelRef.current : document.getElementById(focus.id);
    if (el) {
      el.focus();
      setFocus(null);
    }
  }, [focus, list, created]);

  const formError = useFieldErrors(invitePost.error, INVITE_INPUTS);

  async function invite(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const made = await invitePost.post<CreatedInvitation>(`${base}/invitations`, {
      email: String(form.get("email") ?? ""),
      role: String(form.get("role") ?? "member"),
    });
    if (!made) return;
    setCreated(made);
    setAnnouncement(
      `Invitation for ${made.invitation.email} created. Copy the link now: it is shown only once.` +
        (made.mailed ? " It was also mailed." : ""),
    );
    setFormVersion((v) => v + 1);
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
        <section className="console-section" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite someone</h2>
          <form className="console-form" onSubmit={invite} key={formVersion} noValidate>
            <Field id="invite-email" label="Email address" error={formError.of("email")}>
              {(aria) => (
                <input
                  id="invite-email"
                  name="email"
                  type="email"
                  autoComplete="off"
                  required
                  maxLength={254}
                  placeholder="name@example.com"
                  {...aria}
                />
              )}
            </Field>
            <Field
              id="invite-role"
              label="Role"
              help={
                list.role === "owner"
                  ? "Owners manage everything, owners included; admins manage members and admins; members read."
                  : "Admins manage members and admins; members read. Only owners invite owners."
              }
              error={formError.of("role")}
            >
              {(aria) => (
                <select id="invite-role" name="role" defaultValue="member" {...aria}>
                  <RoleOptions roles={list.grantableRoles} />
                </select>
              )}
            </Field>
            <p className="help">
              {mailConfigured
                ? "The link is mailed to them and shown here once. It works once, for 7 days."
                : "You get a link to send them (no mail is sent). It works once, for 7 days."}
            </p>
            <FormFooter
              error={formError.form}
              submit="Create invitation link"
              disabled={invitePost.busy || !hydrated}
            />
          </form>
        </section>
      ) : null}

      <section className="console-section" aria-labelledby="members-title">
        <h2 id="members-title" tabIndex={-1}>
          Members
        </h2>
        <DataTable label="Members">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.members.map((m) => {
              const me = m.userId === list.userId;
              const manage = !me && list.canManage && mayManage(list.role, m.role);
              const roleButton = (
                <ActionButton
                  id={`role-${m.userId}`}
                  label="Change role…"
                  name={m.email}
                  disabled={!hydrated}
                  onClick={() => setPending({ action: "role", member: m })}
                />
              );
              return (
                <tr key={m.userId} id={rowId(m.userId)} tabIndex={-1}>
                  <td>
                    {m.name}
                    {me ? " (you)" : ""}
                  </td>
                  <td>{m.email}</td>
                  <td>{ROLE_LABEL[m.role]}</td>
                  <td>{formatTime(m.joinedAt)}</td>
                  <td>
                    {me ? (
                      lastOwner ? (
                        <p className="help">Last owner: make someone else an owner to leave or step down.</p>
                      ) : (
                        <div className="row-actions">
                          {list.canManage ? roleButton : null}
                          <ActionButton
                            id={`leave-${m.userId}`}
                            label="Leave…"
                            name={list.org.name}
                            danger
                            disabled={!hydrated}
                            onClick={() => setPending({ action: "leave", member: m })}
                          />
                        </div>
                      )
                    ) : manage ? (
                      <div className="row-actions">
                        {roleButton}
                        <ActionButton
                          id={`remove-${m.userId}`}
                          label="Remove…"
                          name={m.email}
                          danger
                          disabled={!hydrated}
                          onClick={() => setPending({ action: "remove", member: m })}
                        />
                        {list.role === "owner" ? (
                          <PasswordResetButton
                            org={list.org.slug}
                            userId={m.userId}
                            email={m.email}
                            csrfToken={csrfToken}
                          />
                        ) : null}
                      </div>
                    ) : (
                      <span className="help">—</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </DataTable>
      </section>

      {list.canManage ? (
        <section className="console-section" aria-labelledby="invitations-title">
          <h2 id="invitations-title" tabIndex={-1}>
            Open invitations
          </h2>
          {list.invitations.length === 0 ? (
            <p>No open invitations.</p>
          ) : (
            <DataTable label="Open invitations">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Invited by</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.invitations.map((i) => (
                  <tr key={i.id}>
                    <td>{i.email}</td>
                    <td>{ROLE_LABEL[i.role]}</td>
                    <td>{i.invitedBy ?? "—"}</td>
                    <td>{formatTime(i.expiresAt)}</td>
                    <td>
                      <span className={`key-status ${i.status === "pending" ? "active" : "expired"}`}>
                        {i.status}
                      </span>
                    </td>
                    <td>
                      <ActionButton
                        id={`revoke-${i.id}`}
                        label="Revoke…"
                        name={`the invitation for ${i.email}`}
                        danger
                        disabled={!hydrated}
                        onClick={() => setPending({ action: "revoke", invitation: i })}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </DataTable>
          )}
        </section>
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

// The roles one may choose, by their names.
function RoleOptions({ roles }: { roles: Role[] }) {
  return roles.map((r) => (
    <option key={r} value={r}>
      {ROLE_LABEL[r]}
    </option>
  ));
}

// A row's action button, named for assistive technology with what it acts on ("Remove… bob@example.com").
function ActionButton(props: {
  id: string;
  label: string;
  name: string;
  danger?: boolean;
  disabled: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      id={props.id}
      className={props.danger ? "secondary danger" : "secondary"}
      aria-label={`${props.label.replace("…", "")} ${props.name}`}
      disabled={props.disabled}
      onClick={props.onClick}
    >
      {props.label}
    </button>
  );
}

// Change role: the roles the user may give, the member's current one selected, then "Save role".
function RoleDialog(props: {
  member: Member | null;
  roles: Role[];
  busy: boolean;
  error: string | null;
  onSave: (member: Member, role: Role) => void;
  onClose: () => void;
}) {
  const { member } = props;
  return (
    <Dialog
      open={member !== null}
      title={member ? `Change the role of ${member.email}` : ""}
      onClose={props.onClose}
      error={props.error}
    >
      {member ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const role = new FormData(e.currentTarget).get("role") as Role;
            props.onSave(member, role);
          }}
        >
          <Field
            id="member-role"
            label="Role"
            help="A weaker role ends their console sessions; they sign in again."
          >
            {(aria) => (
              <select id="member-role" name="role" defaultValue={member.role} {...aria}>
                <RoleOptions roles={props.roles} />
              </select>
            )}
          </Field>
          <DialogButtons action="Save role" busy={props.busy} onCancel={props.onClose} />
        </form>
      ) : null}
    </Dialog>
  );
}
