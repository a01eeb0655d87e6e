// The blocks a workbook's table rows are encoded into (table-sheet.ts) on their way to their
// sheet's deflate (parallel-deflate.ts), which copies each block as it takes it and hands it back
// here for later rows. A sheet's stream passes blocks on uncopied (exceljs-adapter.ts), so a Shifts
// sheet of 300k rows goes through a few blocks, not ~4,700 fresh ones: V8 counts the bytes of
// buffers that die old against the heap's limit, and each ~30 MB of them made the export's thread
// mark its whole heap again (docs/performance.md, "Buffers that die old").

/** Encoded rows gathered before one write into the sheet's stream (a write costs more than a row). */
export const BLOCK_BYTES = 64 * 1024;

/** Blocks kept for reuse: about as many as a sheet's writes have on their way to its deflate. */
const KEEP = 16;

export class SheetBlocks {
  readonly #spare: Buffer[] = [];
  /** The memory of the blocks handed out and not back yet. */
  readonly #lent = new WeakSet<ArrayBufferLike>();

  /** A block of BLOCK_BYTES, with memory of its own. */
  take(): Buffer {
    const block = this.#spare.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
    this.#lent.add(block.buffer);
    return block;
  }

  /**
   * Bytes a sheet's deflate has copied and let go: when they are (part of) a block taken here, that
   * block is free again. Any other bytes (exceljs's own writes) are left alone.
   */
  taken(bytes: Uint8Array): void {
    const memory = bytes.buffer;
    if (!this.#lent.delete(memory)) return;
    if (this.#spare.length < KEEP) this.#spare.push(Buffer.from(memory, 0, BLOCK_BYTES));
  }
}
