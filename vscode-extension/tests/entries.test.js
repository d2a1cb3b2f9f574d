"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { load } = require("./helpers/harness");

const { entryAt, functionAt } = load("entries.js");

const SRC = `import torch

class Net(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if x.ndim == 2:
            x = x[None]

        return self.fc(x)

async def helper(y):
    return y

z = helper(1)
`;

test("the entry under the cursor: method, class body, function, module level", () => {
  assert.strictEqual(entryAt(SRC, 8), "Net.forward");     // inside an if inside forward
  assert.strictEqual(entryAt(SRC, 9), "Net.forward");     // a blank line inside forward
  assert.strictEqual(entryAt(SRC, 6), "Net.forward");     // the def line itself
  assert.strictEqual(entryAt(SRC, 2), "Net");             // the class line
  assert.strictEqual(entryAt(SRC, 13), "helper");         // async def body
  assert.strictEqual(entryAt(SRC, 15), undefined);        // module level: the whole file
  assert.strictEqual(entryAt(SRC, 0), undefined);
});

test("the function to annotate is the innermost def, qualified", () => {
  assert.strictEqual(functionAt(SRC, 10), "Net.forward");
  assert.strictEqual(functionAt(SRC, 4), "Net.__init__");
  assert.strictEqual(functionAt(SRC, 13), "helper");
  assert.strictEqual(functionAt(SRC, 2), undefined);
  assert.strictEqual(functionAt(SRC, 15), undefined);
});
