import { describe, expect, it } from 'vitest';
import { twoProportionZTest } from '../../../shared/engines/stats/index.ts';
import { createPrng } from '../../../shared/runtime/flow/index.ts';
import { regressionVerdict } from './regression-test.ts';

describe('A/A simulation: false alarms under continuous monitoring', () => {
  it('the mSPRT stays below alpha where a fixed-sample z-test looked at every minute does not', () => {
    const random = createPrng(20260301);
    const runs = 200;
    const looks = 100;
    const perLook = 10;
    let msprtAlarms = 0;
    let naiveAlarms = 0;
    for (let run = 0; run < runs; run++) {
      // Both versions pass 90% of the time: every alarm is a false alarm.
      const c = { passedA: 0, totalA: 0, passedB: 0, totalB: 0 };
      let msprt = false;
      let naive = false;
      for (let look = 0; look < looks; look++) {
        for (let i = 0; i < perLook; i++) {
          c.totalA++;
          c.totalB++;
          if (random() < 0.9) c.passedA++;
          if (random() < 0.9) c.passedB++;
        }
        if (c.totalA < 30) continue;
        msprt ||= regressionVerdict(c, { alpha: 0.05, minSamples: 30 }).fire;
        const z = twoProportionZTest(c.passedA, c.totalA, c.passedB, c.totalB);
        naive ||= z.proportionB < z.proportionA && z.pValue / 2 <= 0.05;
      }
      if (msprt) msprtAlarms++;
      if (naive) naiveAlarms++;
    }
    // 200 runs of 100 looks at up to 1000 + 1000 scores each: the mSPRT alarms in 1% of them
    // (alpha 5%); a one-sided z-test at 5%, re-run at every look, in 28.5%.
    expect({ msprtAlarms, naiveAlarms }).toEqual({ msprtAlarms: 2, naiveAlarms: 57 });
  });
});
