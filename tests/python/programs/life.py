"""Conway's game of life on a torus with np.roll."""
import numpy as np

n, gens = 64, 50
i, j = np.meshgrid(np.arange(n), np.arange(n), indexing='ij')
board = ((i * 7 + j * 13) % 5 == 0).astype(np.int64)
board[10:13, 10] = 1
for _ in range(gens):
    neighbours = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1)
                     for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
    board = ((neighbours == 3) | ((board == 1) & (neighbours == 2))).astype(np.int64)
print("life", int(board.sum()), int(board[:, :32].sum()), board.dtype)
