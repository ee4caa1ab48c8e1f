import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real, small file system (tmpfs) for tests of a full disk: mounted by the test, filled with a
 * ballast file, freed by removing it, and unmounted at the end. Needs root (mount).
 */
export class SmallDisk {
  private constructor(readonly dir: string) {}

  static mount(sizeBytes: number): SmallDisk {
    const dir = mkdtempSync(join(tmpdir(), 'hookbench-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir]);
    return new SmallDisk(dir);
  }

  private get ballast(): string {
    return join(this.dir, 'ballast');
  }

  freeBytes(): number {
    const fs = statfsSync(this.dir);
    return Number(fs.bavail) * Number(fs.bsize);
  }

  /** Writes the ballast until the file system refuses another byte. */
  fill(): void {
    const fd = openSync(this.ballast, 'a');
    try {
      for (const size of [1024 * 1024, 4096, 1]) {
        const chunk = Buffer.alloc(size);
        for (;;) {
          try {
            writeSync(fd, chunk);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
            throw err;
          }
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Removes the ballast: the space is free again. */
  free(): void {
    rmSync(this.ballast, { force: true });
  }

  unmount(): void {
    execFileSync('umount', ['-l', this.dir]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
