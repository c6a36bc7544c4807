package keystore_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/keystore"
)

// rotateHelperEnv makes the test binary a one-shot "keys rotate": open the
// keystore named by the variable, rotate, print "epoch fingerprint".
const rotateHelperEnv = "ACBRIDGE_KEYSTORE_ROTATE_HELPER"

// rotateLoopEnv makes the helper rotate until it is killed.
const rotateLoopEnv = "ACBRIDGE_KEYSTORE_ROTATE_LOOP"

func rotateHelper(path string) int {
	s, err := keystore.Open(path)
	if err == nil {
		err = s.Rotate()
	}
	for err == nil && os.Getenv(rotateLoopEnv) != "" {
		err = s.Rotate()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("%d %s\n", s.Epoch(), s.Fingerprint())
	return 0
}

// newKeystore creates a keystore in a fresh directory and returns its path.
func newKeystore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), keystore.FileName)
	if _, err := keystore.Create(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// rotateCmd is the test binary as a rotating process (see rotateHelper).
func rotateCmd(t *testing.T, path string, env ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(append(os.Environ(), rotateHelperEnv+"="+path), env...)
	return cmd
}

// A process killed while it rotates (SIGKILL, as a power cut or the OOM
// killer would) leaves a valid keystore, and whatever temporary file it
// left is gone after the next open.
func TestKilledRotationLeavesNoSecretBehind(t *testing.T) {
	path := newKeystore(t)
	left := 0
	for i := 0; i < 5; i++ {
		before, err := keystore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cmd := rotateCmd(t, path, rotateLoopEnv+"=1")
		var out bytes.Buffer
		cmd.Stderr = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it mid-way through some rotation after the first; opening
		// meanwhile is safe, as it only cleans up under the writers' lock.
		if !poll.Until(20*time.Second, 10*time.Millisecond, func() bool {
			s, err := keystore.Open(path)
			return err == nil && s.Epoch() > before.Epoch()
		}) {
			t.Fatalf("the rotating process never rotated: %s", out.String())
		}
		time.Sleep(time.Duration(7*i) * time.Millisecond) // the child process is killed at varying points of its work
		cmd.Process.Kill()
		cmd.Wait()
		if strings.TrimSpace(out.String()) != "" {
			t.Fatalf("the rotating process failed before it was killed: %s", out.String())
		}
		temps, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.tmp-*"))
		left += len(temps)
		if _, err := keystore.Open(path); err != nil {
			t.Fatalf("after a killed rotation: %v", err)
		}
		checkOnlyFile(t, filepath.Dir(path))
	}
	t.Logf("%d of 5 kills left a temporary file behind; each was removed by the next open", left)
}

// A crash between writing the temporary file and renaming it leaves a full
// secret in .keystore.json.tmp-*; the next open or write removes it.
func TestStaleTemporaryFilesAreRemoved(t *testing.T) {
	for _, op := range []string{"open", "rotate", "create"} {
		t.Run(op, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, keystore.FileName)
			if op != "create" {
				if _, err := keystore.Create(path); err != nil {
					t.Fatal(err)
				}
			}
			stale := filepath.Join(dir, "."+keystore.FileName+".tmp-1234567")
			writeFile(t, stale, validJSON(fixedSecret(), 7), 0o600)
			var err error
			switch op {
			case "open":
				_, err = keystore.Open(path)
			case "rotate":
				var s *keystore.Store
				if s, err = keystore.Open(path); err == nil {
					err = s.Rotate()
				}
			case "create":
				_, err = keystore.Create(path)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("stale temporary file still there after %s: %v", op, err)
			}
			checkOnlyFile(t, dir)
		})
	}
}

// checkDistinctEpochs fails when two rotations report one epoch (each with
// its own secret) or when the file does not hold the last one.
func checkDistinctEpochs(t *testing.T, path string, epochs []uint32, n int) {
	t.Helper()
	seen := map[uint32]bool{}
	for _, e := range epochs {
		if seen[e] {
			t.Errorf("epoch %d written by two rotations", e)
		}
		seen[e] = true
	}
	if len(epochs) != n {
		t.Fatalf("%d of %d rotations succeeded", len(epochs), n)
	}
	for e := uint32(2); e <= uint32(n+1); e++ {
		if !seen[e] {
			t.Errorf("no rotation wrote epoch %d", e)
		}
	}
	s, err := keystore.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Epoch() != uint32(n+1) {
		t.Errorf("file epoch %d after %d rotations from 1", s.Epoch(), n)
	}
	checkOnlyFile(t, filepath.Dir(path))
}

// Twenty Stores opened at epoch 1 rotate at once: each rotation must start
// from the file, not from its own stale epoch.
func TestConcurrentRotationsInGoroutines(t *testing.T) {
	const n = 20
	path := newKeystore(t)
	stores := make([]*keystore.Store, n)
	for i := range stores {
		s, err := keystore.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		stores[i] = s
	}
	var (
		mu     sync.Mutex
		epochs []uint32
		wg     sync.WaitGroup
	)
	start := make(chan struct{})
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if err := s.Rotate(); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			epochs = append(epochs, s.Epoch())
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	checkDistinctEpochs(t, path, epochs, n)
}

// The same with twenty processes, as twenty "acbridge keys rotate" would.
func TestConcurrentRotationsInProcesses(t *testing.T) {
	const n = 20
	path := newKeystore(t)
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = rotateCmd(t, path)
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var epochs []uint32
	fps := map[string]uint32{}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("rotation %d: %v: %s", i, err, outs[i])
			continue
		}
		sc := bufio.NewScanner(outs[i])
		for sc.Scan() {
			var e uint32
			var fp string
			if _, err := fmt.Sscanf(sc.Text(), "%d %s", &e, &fp); err != nil {
				t.Errorf("rotation %d printed %q", i, sc.Text())
				continue
			}
			if prev, ok := fps[fp]; ok && prev != e {
				t.Errorf("fingerprint %s reported for epochs %d and %d", fp, prev, e)
			}
			fps[fp] = e
			epochs = append(epochs, e)
		}
	}
	checkDistinctEpochs(t, path, epochs, n)
}

// A keystore another user controls is refused even by root, who can read
// any file: the owner and the directory's mode are the only evidence of who
// put the secret there.
func TestOpenRefusesAKeystoreAnotherUserControls(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	const other = 65534 // nobody
	for _, tc := range []struct {
		name          string
		dirMode       os.FileMode
		dirUID, uid   int
		want          string
		wantUntrusted bool
	}{
		{"file of another user in root's directory", 0o700, 0, other, "owned by uid 65534", true},
		{"file of another user in a world-writable directory", 0o1777, 0, other, "chmod 700", true},
		{"own file in a world-writable directory", 0o777, 0, 0, "chmod 700", true},
		{"own file in a group-writable directory", 0o770, 0, 0, "chmod 700", true},
		{"own file in a directory of another user", 0o700, other, 0, "directory", true},
		{"the service user's keystore in its own directory", 0o700, other, other, "", false},
		{"own file in own directory", 0o700, 0, 0, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, keystore.FileName)
			writeFile(t, path, validJSON(fixedSecret(), 1), 0o600)
			if err := os.Chown(path, tc.uid, tc.uid); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, tc.dirUID, tc.dirUID); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, tc.dirMode); err != nil {
				t.Fatal(err)
			}
			_, err := keystore.Open(path)
			if !tc.wantUntrusted {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, keystore.ErrUntrusted) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open: %v (want ErrUntrusted naming %q)", err, tc.want)
			}
			checkNoSecret(t, err)
		})
	}
}

// Create refuses to put a new secret where others could swap it.
func TestCreateRefusesAWorldWritableDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, keystore.FileName)
	if _, err := keystore.Create(path); !errors.Is(err, keystore.ErrUntrusted) {
		t.Fatalf("Create: %v", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a keystore was written: %v", err)
	}
}

func checkNoSecret(t *testing.T, err error) {
	t.Helper()
	enc := validJSON(fixedSecret(), 1)
	secret := enc[strings.Index(enc, `"secret":"`)+10:]
	secret = secret[:strings.Index(secret, `"`)]
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("error carries the secret: %v", err)
	}
}
