export interface Progress {
  start(total: number, alreadyDone: number): void;
  tick(): void;
  finish(): void;
}

const WIDTH = 30;

/**
 * A bar redrawn in place when `stream` is a terminal; otherwise a plain line at every tenth, so CI
 * logs stay readable.
 */
export function createProgress(stream: NodeJS.WritableStream & { isTTY?: boolean }, label = 'eval'): Progress {
  let total = 0;
  let done = 0;
  let lastDecile = -1;
  const tty = stream.isTTY === true;
  const draw = (): void => {
    if (tty) {
      const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total}`);
      return;
    }
    const decile = total === 0 ? 10 : Math.floor((done / total) * 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      stream.write(`${label}: ${done}/${total} tries done\n`);
    }
  };
  return {
    start(t, already) {
      total = t;
      done = already;
      draw();
    },
    tick() {
      done++;
      draw();
    },
    finish() {
      if (tty) stream.write('\n');
    },
  };
}

