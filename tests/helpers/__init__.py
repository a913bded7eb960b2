"""What the tests share, one module per thing: waits, loopback servers, scripted streams and
conversations, harnesses for the app, `tandem ask`, the store and a real terminal (tmux or a pty).

No test module imports another test module; what two of them need lives here.
"""
