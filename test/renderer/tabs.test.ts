/**
 * A session made by New session takes the front only if the user is still where they asked
 * for it: making it takes a moment (its project instructions are read first), and a tab the
 * user clicked meanwhile keeps the front.
 */
import { describe, expect, it } from 'vitest';
import { withMadeTab } from '../../src/renderer/state/tabs';

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
