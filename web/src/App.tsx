import { BrowserRouter, Navigate, Route, Routes, useParams } from "react-router-dom";

import { KeeperQueries } from "./api/KeeperQueries";
import { Layout } from "./components/Layout";
import { DomainProvider } from "./components/DomainProvider";
import type { WebConfig } from "./config";
import { AgentActivity } from "./pages/AgentActivity";
import { CanvasPage } from "./pages/CanvasPage";
import { DomainHome } from "./pages/DomainHome";
import { Domains } from "./pages/Domains";
import { Explore } from "./pages/Explore";
import { ProposalPage } from "./pages/ProposalPage";
import { Proposals } from "./pages/Proposals";
import { RecordPage } from "./pages/RecordPage";
import { Records } from "./pages/Records";
import { RetrievalLab } from "./pages/RetrievalLab";
import { SignIn } from "./pages/SignIn";
import { useSession } from "./session";
import { SessionProvider } from "./SessionProvider";

function InDomain() {
  const { domain = "" } = useParams();
  return (
    <DomainProvider domain={domain}>
      <Routes>
        <Route index element={<DomainHome />} />
        <Route path="kinds/:kind" element={<Records />} />
        <Route path="kinds/:kind/:key" element={<RecordPage />} />
        <Route path="canvas" element={<CanvasPage />} />
        <Route path="proposals" element={<Proposals />} />
        <Route path="proposals/:proposal" element={<ProposalPage />} />
        <Route path="explore" element={<Explore />} />
        <Route path="agent-activity" element={<AgentActivity />} />
        <Route path="lab" element={<RetrievalLab />} />
        <Route path="*" element={<Navigate to="." replace />} />
      </Routes>
    </DomainProvider>
  );
}

function Signed() {
  const { whoami } = useSession();
  if (whoami === null) return <SignIn />;
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<Domains />} />
        <Route path=":domain/*" element={<InDomain />} />
      </Route>
    </Routes>
  );
}

export function App(props: { config: WebConfig }) {
  return (
    <SessionProvider config={props.config}>
      <KeeperQueries>
        <BrowserRouter>
          <Signed />
        </BrowserRouter>
      </KeeperQueries>
    </SessionProvider>
  );
}
