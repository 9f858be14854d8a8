/** The media type of a Content-Type header, without parameters, lower case. */
export function mediaType(header: string | null): string {
  if (header === "application/json") return header; // nearly every request: no copies
  return (header ?? "").split(";", 1)[0]!.trim().toLowerCase();
}
