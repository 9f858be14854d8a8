/**
 * Opens a URL in the user's browser with the platform's opener, without a shell (the URL's `&` stays
 * data). Best effort: a machine without one (a container, CI) just does not open it; the URL is printed
 * anyway.
 */

import { spawn } from "node:child_process";

export function openInBrowser(url: URL): void {
  const [command, args]: [string, string[]] =
    process.platform === "darwin"
      ? ["open", [url.href]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url.href]]
        : ["xdg-open", [url.href]];
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}
