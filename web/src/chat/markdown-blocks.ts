// An answer being written, cut into its top-level markdown blocks, so that each streamed update
// renders (parses, highlights, sanitizes) only the block being written: the finished ones are
// rendered once. The answer, once complete, is rendered whole as before.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that continues the block before a blank line: indented, or another list item. */
const CONTINUES = /^(?:\s|[-*+]\s|\d{1,9}[.)]\s)/;

/**
 * The text's blocks, joined again they are the text: a cut is made after a blank line outside a
 * fenced code block, before a line that starts a new block (not indented, not a list item, which
 * may belong to the list or item above).
 */
export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let blankBefore = false;
  let written = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === undefined && blankBefore && written && line.trim() !== '' && !CONTINUES.test(line)) {
      blocks.push(text.slice(start, offset));
      start = offset;
    }
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length)))
      fence = fence === undefined ? marker : undefined;
    blankBefore = line.trim() === '';
    written ||= !blankBefore;
    offset += line.length + 1;
  }
  blocks.push(text.slice(start));
  return blocks;
}
