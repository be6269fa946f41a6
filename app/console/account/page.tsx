import type { Metadata } from "next";
import { DataTable } from "@/components/data-table";
import { OrgTwoFactorSetting } from "@/components/console/org-two-factor-setting";
import { PasswordChangeForm } from "@/components/console/password-change-form";
import { PasswordResetButton } from "@/components/console/password-reset-button";
import { SessionsList } from "@/components/console/sessions-list";
import { TwoFactorManager } from "@/components/console/two-factor-manager";
import { accountOverview } from "@/lib/console/account";
import { pageSession } from "../page-session";

export const metadata: Metadata = { title: "Account" };
export const dynamic = "force-dynamic";

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

// The signed-in user's account: password, two-factor sign-in, its console sessions (each with its own sign-out), and
// for each organization they own its two-factor requirement and its members' password reset links. ?required=<org>: sent here by an organization that requires
// two-factor sign-in.
export default async function AccountPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { db, user, csrfToken } = await pageSession("/console/account");
  const account = await accountOverview(db, user);
  const requiredSlug = first((await searchParams).required);
  const requiring = account.requiringOrgs.find((o) => o.slug === requiredSlug);
  const missing = requiring && !account.twoFactor.enabled && !account.sso;
  return (
    <div className="docs-content">
      <h1>Your account</h1>
      <p className="lead">
        {account.name} · {account.email}
      </p>
      {missing ? (
        <p className="error-text" role="alert">
          {requiring.name} requires two-factor sign-in. Set it up below to open its pages.
        </p>
      ) : null}

      <section className="console-section" aria-labelledby="password-title">
        <h2 id="password-title">Password</h2>
        {account.hasPassword ? (
          <>
            <p>Changing it signs out every other session of your account; this one stays signed in.</p>
            <PasswordChangeForm csrfToken={csrfToken} />
          </>
        ) : (
          <p>
            Your account has no password: you sign in with your organization&apos;s identity provider (SSO).
            Your password and second factor are managed there.
          </p>
        )}
      </section>

      {account.hasPassword ? (
        <TwoFactorManager status={account.twoFactor} csrfToken={csrfToken} />
      ) : (
        <section className="console-section" aria-labelledby="two-factor-title">
          <h2 id="two-factor-title">Two-factor sign-in</h2>
          <p>You sign in with your identity provider: its own multi-factor sign-in applies.</p>
        </section>
      )}

      <SessionsList sessions={account.sessions} csrfToken={csrfToken} />

      {account.ownedOrgs.map((org) => (
        <section className="console-section" key={org.slug} aria-labelledby={`org-${org.slug}-title`}>
          <h2 id={`org-${org.slug}-title`}>{org.name}: security</h2>
          <OrgTwoFactorSetting
            org={org.slug}
            orgName={org.name}
            required={org.twoFactorRequired}
            csrfToken={csrfToken}
          />
          <h3>Password reset links</h3>
          <p>
            A link lets a member set a new password (once, within an hour) and signs out all their sessions.
            No email is sent: copy the link and hand it over.
          </p>
          <DataTable label={`Members of ${org.name}`}>
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Role</th>
                <th scope="col">Two-factor</th>
                <th scope="col">Password</th>
              </tr>
            </thead>
            <tbody>
              {org.members.map((m) => (
                <tr key={m.userId}>
                  <td>{m.email}</td>
                  <td>{m.role}</td>
                  <td>{m.twoFactor ? "on" : "off"}</td>
                  <td>
                    {m.userId === user.id ? (
                      "you: change it above"
                    ) : m.hasPassword ? (
                      <PasswordResetButton
                        org={org.slug}
                        userId={m.userId}
                        email={m.email}
                        csrfToken={csrfToken}
                      />
                    ) : (
                      "signs in with SSO"
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        </section>
      ))}
    </div>
  );
}
