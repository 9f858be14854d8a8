/** Waiting for a writable stream to take more. */

/**
 * Calls `done` once the stream drains, or closes, since a closed stream never drains (its pending write
 * callbacks report the error); either way both listeners are removed first.
 */
export function onceDrained(stream: NodeJS.WritableStream, done: () => void): void {
  const settle = () => {
    stream.removeListener("drain", settle);
    stream.removeListener("close", settle);
    done();
  };
  stream.on("drain", settle);
  stream.on("close", settle);
}
