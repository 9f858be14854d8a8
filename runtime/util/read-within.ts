/**
 * A stream's bytes, read within a bound: refused as soon as they pass `maxBytes`, so never more than the
 * bound is held. Request bodies (http/) and documents from authorization servers (auth/) are read so.
 */

export interface ReadWithinOptions {
  /** What to throw once the bytes pass the bound (the stream is cancelled first). */
  tooLarge: () => Error;
  /** What to throw when the stream itself fails (default: its own error). */
  broken?: (error: unknown) => Error;
}

export async function readWithin(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  options: ReadWithinOptions,
): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw options.broken ? options.broken(error) : error;
    }
    if (chunk.done) break;
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw options.tooLarge();
    }
    chunks.push(chunk.value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
