/**
 * What each open session shows the user, wherever it is shown (tab, sidebar row, the tab
 * strip's overflow control, the status line): waiting for the user comes before working,
 * and a tab out of view calls only when it waits for the user.
 */
import { describe, expect, it } from 'vitest';
import { attentionMarker, hiddenAttention, waitingText } from '../../src/renderer/state/attention';
import { INITIAL_CHAT_STATE, type Approval, type ChatState } from '../../src/renderer/state/chat-reducer';

const approval: Approval = {
  requestId: 'r1',
  tool: 'write_file',
  effect: 'write-files',
  summary: 'write a.txt',
  label: 'writes files',
  preview: null,
  offer: null,
};
const state = (patch: Partial<ChatState>): ChatState => ({ ...INITIAL_CHAT_STATE, ...patch });
const waitingApproval = state({ phase: 'running', approvals: [approval] });
const asking = state({ phase: 'running', questions: [{ requestId: 'q1', question: 'Which?' }] });
const working = state({ phase: 'running' });

describe('a session’s marker', () => {
  it('says an approval first, then a question, then work, in words beside the sign', () => {
    expect(attentionMarker(state({ ...waitingApproval, questions: asking.questions }))).toEqual({ kind: 'approval', sign: '!', text: 'needs your approval' });
    expect(attentionMarker(asking)).toEqual({ kind: 'question', sign: '?', text: 'asks you a question' });
    expect(attentionMarker(working)).toEqual({ kind: 'busy', sign: '…', text: 'working' });
    expect(attentionMarker(state({ phase: 'compacting' }))?.kind).toBe('busy');
    expect(attentionMarker(INITIAL_CHAT_STATE)).toBeNull();
  });
});

describe('the status line while the engine waits on the user', () => {
  it('says what it waits for, not the tool that asked', () => {
    expect(waitingText(waitingApproval)).toBe('Waiting for your approval');
    expect(waitingText(asking)).toBe('Waiting for your answer');
    expect(waitingText(working)).toBeNull();
  });
});

describe('the overflow control’s marker for the tabs out of view', () => {
  const marker = (s: ChatState) => attentionMarker(s);

  it('is the most urgent wait among them', () => {
    expect(hiddenAttention([marker(working), marker(asking), null, marker(waitingApproval)])?.sign).toBe('!');
    expect(hiddenAttention([marker(asking), undefined])?.sign).toBe('?');
  });

  it('is none for tabs that only work or rest', () => {
    expect(hiddenAttention([marker(working), null, undefined])).toBeNull();
    expect(hiddenAttention([])).toBeNull();
  });
});
