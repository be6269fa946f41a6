// Mail from the console: an invitation's link, sent through the SMTP server of SMTP_URL with nodemailer.
// No mail server is part of the product: without SMTP_URL nothing is mailed and nothing fails (the console shows the
// link to copy). A mail that cannot be sent is logged and reported as not sent; the invitation stands.
import type { Config } from "@/lib/config";

// One mail as the transport takes it.
export interface Mail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

// Sends one mail (nodemailer's transport in production; a test passes its own).
export type SendMail = (mail: Mail) => Promise<unknown>;

// What an invitation's mail says.
export interface InvitationMail {
  to: string;
  orgName: string;
  role: string;
  url: string;
  expiresAt: string;
  invitedBy: string;
}

// Longest the SMTP exchange may take (connection, greeting, each reply): the invite request waits for it.
const SMTP_TIMEOUT_MS = 10_000;

// The sender through SMTP_URL, or null when no SMTP server is configured.
export function smtpSender(config: Pick<Config, "SMTP_URL">): SendMail | null {
  const url = config.SMTP_URL;
  if (!url) return null;
  return async (mail) => {
    const nodemailer = await import("nodemailer");
    const transport = nodemailer.createTransport(url, {
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    } as Parameters<typeof nodemailer.createTransport>[1]);
    try {
      return await transport.sendMail(mail);
    } finally {
      transport.close();
    }
  };
}

// The From of the console's mails: SMTP_FROM, else no-reply at the public base URL's host.
export function mailFrom(config: Pick<Config, "SMTP_FROM" | "baseUrl">): string {
  return config.SMTP_FROM ?? `Public Catalog API <no-reply@${new URL(config.baseUrl).hostname}>`;
}

// The mail of an invitation (plain text: the link, the organization, the role, until when).
export function invitationMail(config: Pick<Config, "SMTP_FROM" | "baseUrl">, m: InvitationMail): Mail {
  return {
    from: mailFrom(config),
    to: m.to,
    subject: `Invitation to join ${m.orgName}`,
    text: [
      `${m.invitedBy} invites you to join ${m.orgName} as ${m.role} in the Public Catalog API console.`,
      "",
      "Open this link to accept (it works once):",
      m.url,
      "",
      `It expires on ${m.expiresAt.slice(0, 10)} at ${m.expiresAt.slice(11, 16)} UTC.`,
      "If you did not expect this invitation, ignore this mail.",
    ].join("\n"),
  };
}

// Mails an invitation when an SMTP server is configured; true when it was handed to the server. Never throws.
export async function mailInvitation(
  config: Pick<Config, "SMTP_URL" | "SMTP_FROM" | "baseUrl">,
  m: InvitationMail,
  send: SendMail | null = smtpSender(config),
): Promise<boolean> {
  if (!send) return false;
  try {
    await send(invitationMail(config, m));
    return true;
  } catch (err) {
    console.error("[console] the invitation could not be mailed:", (err as Error).message);
    return false;
  }
}
