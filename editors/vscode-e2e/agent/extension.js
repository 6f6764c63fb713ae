// A stand-in for an AI agent extension, for make e2e-vscode only. It uses the Wave Hooks extension's exported API
// as a real agent would (editors/vscode/README.md, "API for agent extensions") and shows what it got back where
// the test can read it in the UI:
//   - a status bar item "Test Agent: API ok, askStyle …" once it holds the API with the methods it uses
//     (askStyle: the setting as the extension host sees it, so the test knows when a change has reached it);
//   - "Test Agent: Run Tool" asks for a tool call (`NAME {json input}`), starts a session on first use, records
//     the call as the model's, runs wave.preToolUse and shows
//     `agent result #N: {"tool":…,"permission":…,"reason":…,"asked":…}` as an information message
//     (`agent error #N: …` as an error message when the API call fails);
//   - it evaluates prompt hooks for wavehooks (wave.onEvaluateHook) with a stand-in model: a prompt that mentions
//     "secret" gets {"ok": false, "reason": "the test agent's model will not touch secrets"}, any other {"ok": true}.
const vscode = require('vscode');

exports.activate = async function activate(context) {
  const item = vscode.window.createStatusBarItem('testAgent.status', vscode.StatusBarAlignment.Right, 1000);
  item.name = 'Test Agent';
  item.text = 'Test Agent: activating';
  item.show();
  context.subscriptions.push(item);

  const ext = vscode.extensions.getExtension('wavehooks.wavehooks');
  if (!ext) {
    item.text = 'Test Agent: wavehooks.wavehooks is not installed';
    return;
  }
  let wave;
  try {
    wave = await ext.activate();
  } catch (err) {
    item.text = `Test Agent: activating wavehooks failed: ${err && err.message}`;
    return;
  }
  const missing = ['sessionStart', 'addAssistantMessage', 'preToolUse', 'onEvaluateHook'].filter((m) => typeof (wave && wave[m]) !== 'function');
  if (!missing.length) {
    context.subscriptions.push(
      wave.onEvaluateHook((p) =>
        p.type === 'prompt' && /secret/.test(p.prompt || '')
          ? { ok: false, reason: "the test agent's model will not touch secrets" }
          : { ok: true },
      ),
    );
  }
  const showStatus = () => {
    const style = vscode.workspace.getConfiguration('wavehooks').get('askStyle');
    item.text = `Test Agent: ${missing.length ? `API lacks ${missing.join(', ')}` : 'API ok'}, askStyle ${style}`;
  };
  showStatus();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('wavehooks.askStyle')) showStatus();
    }),
  );

  let sessionId;
  let seq = 0;
  context.subscriptions.push(
    vscode.commands.registerCommand('testAgent.runTool', async () => {
      const line = await vscode.window.showInputBox({
        title: 'Test Agent: the tool call the model makes',
        prompt: 'NAME {json input}, e.g. Bash {"command":"ls"}',
        ignoreFocusOut: true,
      });
      if (!line) return;
      const n = ++seq;
      try {
        const m = /^(\S+)\s*([\s\S]*)$/.exec(line.trim());
        const toolName = m[1];
        const toolInput = m[2] ? JSON.parse(m[2]) : {};
        if (!sessionId) sessionId = (await wave.sessionStart({ source: 'startup' })).sessionId;
        const toolUseId = `toolu_e2e_${n}`;
        await wave.addAssistantMessage({ sessionId, blocks: [{ type: 'tool', id: toolUseId, name: toolName, input: toolInput }] });
        const pre = await wave.preToolUse({ sessionId, toolUseId, toolName, toolInput });
        const result = { tool: toolName, permission: pre.permission, reason: pre.reason || '', asked: pre.asked };
        void vscode.window.showInformationMessage(`agent result #${n}: ${JSON.stringify(result)}`);
      } catch (err) {
        void vscode.window.showErrorMessage(`agent error #${n}: ${err && err.message}`);
      }
    }),
  );
};

exports.deactivate = function deactivate() {};
