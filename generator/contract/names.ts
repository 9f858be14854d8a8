/** The names a contract's items take in generated code. */

/** `get_user` → `GetUser`; the form a contract name takes inside type names. */
export function typeNameOf(name: string): string {
  const pascal = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
  return /^[0-9]/.test(pascal) || pascal === "" ? `N${pascal}` : pascal;
}
