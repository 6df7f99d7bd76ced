/** Sizes read alike wherever Loom shows one: an approval, an image refused, an update offered. */
import { describe, expect, it } from 'vitest';
import { MAX_IMAGE_BYTES } from '../../src/shared/attachments';
import { formatBytes } from '../../src/shared/byte-size';
import { imageDataProblem } from '../../src/core/security/image-data';

describe('sizes for people', () => {
  it('say bytes, then kB and MB of 1024, with one decimal only when it is not 0', () => {
    expect([0, 512, 1023, 1024, 1200, 2048, 6356, 512 * 1024, 5 * 1024 * 1024, 117_440_512].map(formatBytes)).toEqual([
      '0 B',
      '512 B',
      '1023 B',
      '1 kB',
      '1.2 kB',
      '2 kB',
      '6.2 kB',
      '512 kB',
      '5 MB',
      '112 MB',
    ]);
  });

  it('name the image cap as the docs do: 5 MB', () => {
    const tooLarge = `data:image/png;base64,${Buffer.alloc(MAX_IMAGE_BYTES + 3).toString('base64')}`;
    expect(imageDataProblem(tooLarge)).toBe('it is larger than 5 MB');
  });
});
