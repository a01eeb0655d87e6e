// Where a process's resident memory lies, read from outside it (/proc/<pid>/smaps): the soak line
// (soak.ts) shows it beside the RSS, so that growth can be told apart — memory glibc's malloc keeps
// in its per-thread arenas (freed by the program, not given back to the system) against the rest.
// A thread arena is one 64 MiB-aligned anonymous reservation (HEAP_MAX_SIZE on 64-bit glibc): a
// read-write start, grown as needed, and the PROT_NONE rest of the 64 MiB.

import { readFileSync } from 'node:fs';

const ARENA_BYTES = 64 * 2 ** 20;

export interface ProcessMemory {
  /** Resident MB in glibc's thread arenas (not the main arena, which is `[heap]`). */
  readonly arenasMb: number;
  /** Thread arenas that hold resident memory. */
  readonly arenas: number;
  /** Resident MB in `[heap]`: glibc's main arena. */
  readonly mainArenaMb: number;
  /** Resident MB in the other anonymous mappings: V8's heaps, large mmapped blocks, stacks. */
  readonly otherAnonymousMb: number;
  /** Resident MB of mapped files: the node binary, libraries. */
  readonly filesMb: number;
}

interface Mapping {
  readonly start: bigint;
  readonly end: bigint;
  readonly perms: string;
  readonly name: string;
  rssKb: number;
}

function mappings(text: string): Mapping[] {
  const list: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head !== null) {
      current = {
        start: BigInt(`0x${head[1]}`),
        end: BigInt(`0x${head[2]}`),
        perms: head[3] as string,
        name: head[4] as string,
        rssKb: 0,
      };
      list.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB$/.exec(line);
    if (rss !== null && current !== undefined) current.rssKb = Number(rss[1]);
  }
  return list;
}

/** The resident memory of process `pid` by kind of mapping. */
export function processMemory(pid: number): ProcessMemory {
  const list = mappings(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  const arena = BigInt(ARENA_BYTES);
  let arenasKb = 0;
  let arenas = 0;
  let mainKb = 0;
  let anonymousKb = 0;
  let filesKb = 0;
  list.forEach((m, i) => {
    const next = list[i + 1];
    const isArena =
      m.name === '' &&
      m.perms.startsWith('rw') &&
      m.start % arena === 0n &&
      (m.end - m.start === arena ||
        (next !== undefined &&
          next.start === m.end &&
          next.perms.startsWith('---') &&
          next.end - m.start === arena));
    if (isArena) {
      arenasKb += m.rssKb;
      if (m.rssKb > 0) arenas++;
    } else if (m.name === '[heap]') mainKb += m.rssKb;
    else if (m.name === '' || m.name.startsWith('[')) anonymousKb += m.rssKb;
    else filesKb += m.rssKb;
  });
  return {
    arenasMb: arenasKb / 1024,
    arenas,
    mainArenaMb: mainKb / 1024,
    otherAnonymousMb: anonymousKb / 1024,
    filesMb: filesKb / 1024,
  };
}
