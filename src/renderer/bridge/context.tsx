/**
 * The bridge for every component: provided once at the root, reached with `useBridge()`,
 * so no component passes it down to the next.
 */
import { createContext, useContext, type ReactNode } from 'react';
import type { LoomBridge } from '../../shared/contract';

const BridgeContext = createContext<LoomBridge | null>(null);

export function BridgeProvider({ bridge, children }: { bridge: LoomBridge; children: ReactNode }) {
  return <BridgeContext.Provider value={bridge}>{children}</BridgeContext.Provider>;
}

export function useBridge(): LoomBridge {
  const bridge = useContext(BridgeContext);
  if (!bridge) throw new Error('useBridge() is used outside <BridgeProvider>.');
  return bridge;
}
