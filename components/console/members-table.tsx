"use client";
// The members page's tables: the members, with per row the actions the user's role allows
// (lib/console/member-rules.ts: "Change role…", "Remove…", an owner's password reset link; "Leave…" on the user's
// own row unless they are the last owner), and the open invitations with "Revoke…". Each action opens its dialog
// (the page's); the server checks the role again.
import { DataTable } from "@/components/data-table";
import { mayManage } from "@/lib/console/member-rules";
import type { Invitation } from "@/lib/console/invitations";
import type { Member } from "@/lib/console/member-access";
import type { MembersList } from "@/lib/console/members";
import { formatTime } from "./format";
import { ActionButton, ROLE_LABEL } from "./member-controls";
import { PasswordResetButton } from "./password-reset-button";

// The id of a member's row (the focus goes back to it after a change).
export const rowId = (userId: string) => `member-row-${userId}`;

// The members, each with the actions the user may take on them.
export function MembersTable(props: {
  list: MembersList;
  csrfToken: string;
  hydrated: boolean;
  onAction: (action: "role" | "remove" | "leave", member: Member) => void;
}) {
  const { list, hydrated, onAction } = props;
  const lastOwner = list.role === "owner" && list.ownerCount <= 1;
  return (
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
                onClick={() => onAction("role", m)}
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
                          onClick={() => onAction("leave", m)}
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
                        onClick={() => onAction("remove", m)}
                      />
                      {list.role === "owner" ? (
                        <PasswordResetButton
                          org={list.org.slug}
                          userId={m.userId}
                          email={m.email}
                          csrfToken={props.csrfToken}
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
  );
}

// The open invitations, each with "Revoke…".
export function InvitationsTable(props: {
  invitations: Invitation[];
  hydrated: boolean;
  onRevoke: (invitation: Invitation) => void;
}) {
  return (
    <section className="console-section" aria-labelledby="invitations-title">
      <h2 id="invitations-title" tabIndex={-1}>
        Open invitations
      </h2>
      {props.invitations.length === 0 ? (
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
            {props.invitations.map((i) => (
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
                    disabled={!props.hydrated}
                    onClick={() => props.onRevoke(i)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </DataTable>
      )}
    </section>
  );
}
