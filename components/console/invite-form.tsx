"use client";
// The members page's invite form (owners and admins): an email and a role; the server answers with the invitation
// and its link, shown once by the page (and mailed when SMTP is configured). An invalid field gets its message next
// to it, in words, and the focus.
import { useState, type FormEvent } from "react";
import type { CreatedInvitation } from "@/lib/console/invitations";
import type { MembersList } from "@/lib/console/members";
import { useFieldErrors } from "./field-error";
import { Field, FormFooter } from "./field";
import { RoleOptions } from "./member-controls";
import { useConsolePost } from "./use-console-post";

// The invite form's inputs, by the code the server names their field with.
const INVITE_INPUTS = { email: "invite-email", role: "invite-role" };

// The form; `onCreated` gets each invitation made (the form is then emptied).
export function InviteForm(props: {
  list: MembersList;
  base: string;
  csrfToken: string;
  mailConfigured: boolean;
  hydrated: boolean;
  onCreated: (made: CreatedInvitation) => void;
}) {
  const { list } = props;
  const invitePost = useConsolePost(props.csrfToken);
  const [formVersion, setFormVersion] = useState(0);
  const formError = useFieldErrors(invitePost.error, INVITE_INPUTS);

  async function invite(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const made = await invitePost.post<CreatedInvitation>(`${props.base}/invitations`, {
      email: String(form.get("email") ?? ""),
      role: String(form.get("role") ?? "member"),
    });
    if (!made) return;
    setFormVersion((v) => v + 1);
    props.onCreated(made);
  }

  return (
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
          {props.mailConfigured
            ? "The link is mailed to them and shown here once. It works once, for 7 days."
            : "You get a link to send them (no mail is sent). It works once, for 7 days."}
        </p>
        <FormFooter
          error={formError.form}
          submit="Create invitation link"
          disabled={invitePost.busy || !props.hydrated}
        />
      </form>
    </section>
  );
}
