// A short readable name of a browser from its User-Agent header, as the account page lists sessions: "Chrome on
// Linux", "Safari on iOS", "Firefox". Only the common browsers and systems are named; the rest is "Unknown browser"
// (the header is the client's own claim: a name to recognise a session by, not a proof of anything).

// Browsers, the first match winning: those built on Chrome name themselves beside "Chrome/", and Chrome beside
// "Safari/", so they come first.
const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\b(?:OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(?:Firefox|FxiOS)\//, "Firefox"],
  [/\b(?:HeadlessChrome|Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/^curl\//, "curl"],
];

// Systems, the first match winning: Android's and ChromeOS' headers say "Linux" too, iOS' say "like Mac OS X".
const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\bAndroid\b/, "Android"],
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

// The readable name of a User-Agent header.
export function browserName(userAgent: string): string {
  const browser = BROWSERS.find(([re]) => re.test(userAgent))?.[1];
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  if (browser) return browser;
  return system ? `A browser on ${system}` : "Unknown browser";
}
