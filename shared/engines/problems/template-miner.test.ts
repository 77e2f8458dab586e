import { describe, expect, it } from 'vitest';
import { createTemplateMiner } from './template-miner.ts';

describe('the template miner', () => {
  it('joins texts that agree on half their positions, widening the differing ones, under the founding id', () => {
    const miner = createTemplateMiner();
    const a = miner.add('user 12 logged in from host alpha');
    const b = miner.add('user 13 logged in from host beta');
    const c = miner.add('disk full on sda');
    expect(a).toEqual({ id: 'db097f67', template: 'user <num> logged in from host alpha' });
    expect(b).toEqual({ id: 'db097f67', template: 'user <num> logged in from host <*>' });
    expect(c.id).not.toBe(a.id);
    expect(miner.get('db097f67')?.count).toBe(2);
  });

  it('keeps texts of different lengths or first words apart', () => {
    const miner = createTemplateMiner();
    const ids = ['connection refused by db', 'connection refused by db again', 'refused connection by db'].map((t) => miner.add(t).id);
    expect(new Set(ids).size).toBe(3);
  });

  it('gives identical masked texts one template in any order, and restores from its state', () => {
    const texts = ['order 1 not found', 'order 2 not found', 'tool x crashed hard', 'order 3 not found'];
    const one = createTemplateMiner();
    const two = createTemplateMiner();
    const first = texts.map((t) => one.add(t).id);
    const second = [...texts].reverse().map((t) => two.add(t).id).reverse();
    expect(first).toEqual(second);
    const restored = createTemplateMiner({}, one.state());
    expect(restored.add('order 99 not found')).toEqual({ id: first[0], template: 'order <num> not found' });
    expect(restored.state().templates.map((t) => t.count)).toEqual(one.state().templates.map((t) => (t.id === first[0] ? t.count + 1 : t.count)));
  });

  it('reports texts past its bound under the overflow id', () => {
    const miner = createTemplateMiner({ maxTemplates: 1 });
    miner.add('alpha beta');
    expect(miner.add('gamma delta epsilon').id).toBe('overflow');
  });
});
