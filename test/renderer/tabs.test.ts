/**
 * A session made by New session takes the front only if the user is still where they asked
 * for it: making it takes a moment (its project instructions are read first), and a tab the
 * user clicked meanwhile keeps the front.
 */
import { describe, expect, it } from 'vitest';
import { tabsOutOfView, withMadeTab } from '../../src/renderer/state/tabs';

describe('a tab for a session just made', () => {
  it('takes the front when the user stayed, and goes at the end', () => {
    expect(withMadeTab({ ids: ['a', 'b'], active: 'b' }, 'new', 'b')).toEqual({ ids: ['a', 'b', 'new'], active: 'new' });
    expect(withMadeTab({ ids: [], active: null }, 'new', null)).toEqual({ ids: ['new'], active: 'new' });
  });

  it('opens behind the tab the user moved to meanwhile', () => {
    expect(withMadeTab({ ids: ['a', 'b'], active: 'a' }, 'new', 'b')).toEqual({ ids: ['a', 'b', 'new'], active: 'a' });
  });

  it('never opens a tab twice', () => {
    expect(withMadeTab({ ids: ['a', 'new'], active: 'a' }, 'new', 'a')).toEqual({ ids: ['a', 'new'], active: 'new' });
  });
});

describe('the tabs out of view of a scrolled strip', () => {
  const strip = { left: 100, right: 500 };
  const tab = (id: string, left: number) => ({ id, left, right: left + 150 });

  it('are those scrolled past either edge or cut by one', () => {
    expect(tabsOutOfView(strip, [tab('a', -200), tab('b', 40), tab('c', 190), tab('d', 340), tab('e', 490)])).toEqual(['a', 'b', 'e']);
  });

  it('are none when every tab is inside, a border’s width or a rounded scroll aside', () => {
    expect(tabsOutOfView(strip, [tab('a', 99), tab('b', 96.5), tab('c', 353.5)])).toEqual([]);
    expect(tabsOutOfView(strip, [tab('a', 95), tab('b', 355)])).toEqual(['a', 'b']);
  });
});
