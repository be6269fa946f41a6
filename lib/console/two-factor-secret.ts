// The TOTP of two-factor sign-in (RFC 6238 through `otpauth`: SHA-1, 6 digits, 30 s, as every authenticator app
// reads them), a code accepted within ±1 step (30 s either side, for clock drift), and the encryption of an
// account's secret at rest (AES-256-GCM, key derived from the sessions' secret: changing AUTH_SECRET makes every
// account set two-factor up again). Also how a typed code is normalized and a recovery code hashed.
import "server-only";
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { z } from "zod";
import type { Config } from "@/lib/config";
import { authSecret } from "./auth-secret";

// The TOTP parameters (those of Google Authenticator, 1Password, Aegis…): never change them for enabled accounts.
export const TOTP_PARAMS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
// Steps accepted either side of the current one.
export const TOTP_WINDOW = 1;
// The issuer shown in authenticator apps.
export const TOTP_ISSUER = "Public Catalog API";

export type SecretConfig = Pick<Config, "AUTH_SECRET" | "DATA_DIR" | "dbDriver">;

// The key that encrypts TOTP secrets: HKDF-SHA256 of the sessions' secret, for this purpose only.
function encryptionKey(config: SecretConfig): Buffer {
  return Buffer.from(hkdfSync("sha256", authSecret(config), "", "console two-factor secret v1", 32));
}

// Encrypts a base32 TOTP secret for one account ("v1.<iv>.<ciphertext+tag>", base64url); the user id is the
// associated data, so a secret copied onto another account's row does not decrypt.
export function encryptSecret(config: SecretConfig, userId: string, base32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(config), iv);
  cipher.setAAD(Buffer.from(userId));
  const body = Buffer.concat([cipher.update(base32, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString("base64url")}.${body.toString("base64url")}`;
}

// Decrypts what encryptSecret made for this account; throws on any tampering or another key.
export function decryptSecret(config: SecretConfig, userId: string, stored: string): string {
  const [version, iv, body] = stored.split(".");
  if (version !== "v1" || !iv || !body) throw new Error("Unknown two-factor secret format");
  const data = Buffer.from(body, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(config), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(userId));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}

// The TOTP of a base32 secret, labelled with the account's email.
export function totpOf(base32: string, email: string): TOTP {
  return new TOTP({ issuer: TOTP_ISSUER, label: email, secret: Secret.fromBase32(base32), ...TOTP_PARAMS });
}

// The time step of a code accepted at `now` (ms), or null: a 6-digit code within ±TOTP_WINDOW steps.
export function totpStep(base32: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(base32),
    timestamp: now,
    window: TOTP_WINDOW,
    ...TOTP_PARAMS,
  });
  return delta === null ? null : TOTP.counter({ period: TOTP_PARAMS.period, timestamp: now }) + delta;
}

// A code as typed: spaces and dashes dropped, lower case.
export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

// The SHA-256 (hex) under which a recovery code is stored.
export const hashCode = (normalized: string) => createHash("sha256").update(normalized).digest("hex");

// What a check with the app's current code takes (confirming a set-up, regenerating recovery codes).
export const appCodeInputSchema = z
  .object({ code: z.string().trim().min(1, "Enter the 6-digit code of your app.").max(20) })
  .strict();
