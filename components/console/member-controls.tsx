"use client";
// The members page's small controls: a role's name, the role choices, a row's action button and the role dialog.
import type { Role } from "@/lib/console/access";
import type { Member } from "@/lib/console/member-access";
import { Dialog, DialogButtons } from "./dialog";
import { Field } from "./field";

// A role's name as the page shows it.
export const ROLE_LABEL: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };

// The roles one may choose, by their names.
export function RoleOptions({ roles }: { roles: Role[] }) {
  return roles.map((r) => (
    <option key={r} value={r}>
      {ROLE_LABEL[r]}
    </option>
  ));
}

// A row's action button, named for assistive technology with what it acts on ("Remove… bob@example.com").
export function ActionButton(props: {
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
export function RoleDialog(props: {
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
